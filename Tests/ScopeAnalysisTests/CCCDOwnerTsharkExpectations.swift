// Generated with tshark 4.0.17, for each capture FILE of the corpus's real/ folder:
//   tshark -r FILE -Y '(btatt.opcode==0x12 || btatt.opcode==0x52) && btatt.uuid16==0x2902' -T fields \
//     -e frame.number -e btatt.handle -e btatt.characteristic_uuid16 -e btatt.characteristic_uuid128 \
//     -e btatt.service_uuid16
// (each line prefixed with FILE and a tab). Every Write Request / Write Command that tshark's
// btatt dissector knows to be a Client Characteristic Configuration write, with the
// characteristic it says the descriptor belongs to. Used by CCCDOwnerTests. (Left out:
// AleBonora3__Tesi_BLE__Lv4_passkey.pcapng, a Nordic link-layer sniffer capture, which hciscope
// does not read.)
enum CCCDOwnerTsharkExpectations {
    static let rows = """
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	34969	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	34972	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	34976	0x0018	0x2a19		0x180f
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	39702	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	39705	0x0018	0x2a19		0x180f
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	40368	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	40380	0x0018	0x2a19		0x180f
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	43228	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	43247	0x0018	0x2a19		0x180f
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	45329	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	45332	0x0018	0x2a19		0x180f
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	47998	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	48008	0x0013		8667556c9a374c9184ed54ee27d90049	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	48355	0x0018		af0badb15b9943cd917aa77bc549e3cc	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	50654	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	50657	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	54439	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	54442	0x0018	0x2a19		0x180f
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	55886	0x0009	0x2a05		0x1801
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	55889	0x0018	0x2a19		0x180f
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	58246	0x001c	0xffe4		0xffe0
        bbmp__AndroidPad__btsnoop_hci.cfa	545	0x001a	0xfff4		0xfff0
        bbmp__AndroidPad__btsnoop_hci.cfa	7748	0x001a	0xfff4		0xfff0
        bbmp__AndroidPad__btsnoop_hci.cfa	13087	0x001a	0xfff4		0xfff0
        bbmp__AndroidPad__btsnoop_hci.cfa	13172	0x001a	0xfff4		0xfff0
        crossnite__NovaX-Escooter__btsnoop_hci.log	688	0x0011	0x2c01		0x2c00
        csacca__horizon-74-at-ble__btsnoop_hci.log	734	0x0015	0xfff4		0xfff0
        dandwhelan__fossibot-bluetooth__btsnoop_hci.log	4590	0x0039	0xc305		0xa002
        dandwhelan__fossibot-bluetooth__btsnoop_hci.log	8048	0x0039	0xc305		0xa002
        dandwhelan__fossibot-bluetooth__btsnoop_hci.log	8400	0x0039	0xc305		0xa002
        havvk__even-g2-smart-classroom__bt3.pklg	321	0x0009	0x2a05		
        havvk__even-g2-smart-classroom__bt3.pklg	421	0x0009	0x2a05		
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	326	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	443	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	654	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	960	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	1783	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	3310	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	6098	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	9219	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	11538	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	14028	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	16007	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17391	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17774	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	23004	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	25661	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	25779	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	26829	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	26941	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27056	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27227	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27253	0x0009	0xae02		0xae30
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27256	0x000e	0xae04		0xae30
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27259	0x0011	0xae05		0xae30
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27262	0x0045	0xae3c		0xae3a
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27265	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27402	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28046	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28185	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28979	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	29808	0x0085	0xae02		0xae00
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	30705	0x0085	0xae02		0xae00
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	287	0x0013	0x0af7		0x0af0
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	290	0x0016	0x0af2		0x0af0
        mchwalisz__lightsapp-cli__btsnoop_hci.log	424	0x002f	0xfff4		0xfff0
        mchwalisz__lightsapp-cli__btsnoop_hci.log	835	0x002f	0xfff4		0xfff0
        mchwalisz__lightsapp-cli__btsnoop_hci.log	1053	0x002f	0xfff4		0xfff0
        phlash__blefun__btsnoop_hci.log	488	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	602	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	837	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	844	0x001d		00010002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	1006	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	1012	0x001d		00010002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	1483	0x001d		00010002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	1607	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	18855	0x001d		00010002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	18979	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	19101	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	19107	0x001d		00010002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	19753	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	19759	0x001d		00010002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	20460	0x0011		00020002574f4f2053706865726f2121	
        phlash__blefun__btsnoop_hci.log	20466	0x001d		00010002574f4f2053706865726f2121	
        soaresden__IX7TrackerPro__btsnoop_hci.log	1669	0x0014		6e400003b5a3f393e0a9e50e24dcca9e	
        soaresden__IX7TrackerPro__btsnoop_hci.log	3829	0x0014		6e400003b5a3f393e0a9e50e24dcca9e	
        syssi__esphome-lumentree__btsnoop_hci.log	33	0x002b	0xffe1		0xffe0
        syssi__esphome-lumentree__btsnoop_hci.log	35	0x002b	0xffe1		0xffe0
        wangdalian__btsnooper__btsnoop_hci.log	585	0x0018	0xf101		0xf100
        wangdalian__btsnooper__btsnoop_hci.log	588	0x0020	0xfff1		0xfff0
        wangdalian__btsnooper__btsnoop_hci.log	591	0x002b	0xf202		0xf200
        wangdalian__btsnooper__btsnoop_hci.log	7118	0x0018	0xf101		0xf100
        wangdalian__btsnooper__btsnoop_hci.log	7121	0x0020	0xfff1		0xfff0
        wangdalian__btsnooper__btsnoop_hci.log	7124	0x002b	0xf202		0xf200
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	331	0x000c		00000213b2d143f09b88960cebf8b91e	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	684	0x0028		08982198ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	689	0x002e		089823faef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	694	0x002b		089822ceef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	725	0x0013		02f0000000000000000000000000ff02	0x180a
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	772	0x0021		08981beeef8911e981b42a2ae2dbcce4	0x180a
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	778	0x001b		0898195aef8911e981b42a2ae2dbcce4	0x180a
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	787	0x001e		08981ab8ef8911e981b42a2ae2dbcce4	0x180a
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	796	0x0024		08981d24ef8911e981b42a2ae2dbcce4	0x180a
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1127	0x000d	0x2a05		0x1801
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1216	0x00a2		abbafc01e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1224	0x00a5		abbafc02e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1233	0x00a8		abbafc03e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1235	0x0004	0x2a05		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5958	0x000d	0x2a05		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6067	0x00a2		abbafc01e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6103	0x00a5		abbafc02e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6121	0x00a8		abbafc03e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6127	0x0004	0x2a05		0x1801
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6235	0x0028		08982198ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6237	0x002e		089823faef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6240	0x002b		089822ceef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6311	0x0012		08981338ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6314	0x0021		08981beeef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6323	0x001b		0898195aef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6348	0x001e		08981ab8ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6369	0x000c		00000213b2d143f09b88960cebf8b91e	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6379	0x0024		08981d24ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6395	0x0018		0898177aef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6411	0x0015		08981482ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6668	0x00a2		abbafc01e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6674	0x00a5		abbafc02e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6680	0x00a8		abbafc03e56a484cb8328b17cf6cbfe8	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6683	0x0004	0x2a05		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7527	0x0028		08982198ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7530	0x002e		089823faef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7533	0x002b		089822ceef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7565	0x0012		08981338ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7568	0x0021		08981beeef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7572	0x001b		0898195aef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7575	0x001e		08981ab8ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7578	0x0024		08981d24ef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7581	0x0018		0898177aef8911e981b42a2ae2dbcce4	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7586	0x0015		08981482ef8911e981b42a2ae2dbcce4
        """
}
