// Generated with tshark 4.0.17, for each capture FILE of the corpus's real/ folder:
//   tshark -r FILE -Y 'btatt.opcode==0x0a || btatt.opcode==0x0c || btatt.opcode==0x12 || btatt.opcode==0x52 ||
//     btatt.opcode==0xd2 || btatt.opcode==0x16 || btatt.opcode==0x1b || btatt.opcode==0x1d' -T fields \
//     -e frame.number -e bthci_acl.chandle -e btatt.opcode -e btatt.handle -e btatt.service_uuid16 \
//     -e btatt.service_uuid128
// (each line prefixed with FILE and a tab), then, per file, connection handle and ATT handle, only the
// rows where tshark's service changes (the first one included), and no row naming two handles (tshark's
// reading of a PDU it takes for another opcode). Every single-handle ATT PDU (reads, writes,
// notifications, indications, prepare writes) with the service tshark says holds its handle. Used by
// ServiceMembershipTests. (Left out: AleBonora3__Tesi_BLE__Lv4_passkey.pcapng, a Nordic link-layer
// sniffer capture, which hciscope does not read.)
enum ServiceMembershipTsharkExpectations {
    static let rows = """
        Swastik36__OPPO-Earbuds__BT_HCI_2026_0719_110149.cfa	711	0x0edc	0x0a	0x20ff		
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	15	0x03a0	0x1b	0x001b		
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	122	0x03a0	0x52	0x0020		
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	34969	0x03b3	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	34976	0x03b3	0x12	0x0018	0x180f	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	34979	0x03b3	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	39702	0x03c5	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	39705	0x03c5	0x12	0x0018	0x180f	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	39709	0x03c5	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	40368	0x03cb	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	40380	0x03cb	0x12	0x0018	0x180f	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	40454	0x03cb	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	43228	0x03db	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	43247	0x03db	0x12	0x0018	0x180f	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	43354	0x03db	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	45329	0x03e8	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	45332	0x03e8	0x12	0x0018	0x180f	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	45335	0x03e8	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	47998	0x03f3	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	48008	0x03f3	0x12	0x0013		d0611e78bbb44591a5f8487910ae4366
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	48355	0x03f3	0x12	0x0018		9fa480e0496745429390d343dc5d04ae
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	48419	0x03f3	0x12	0x0011		d0611e78bbb44591a5f8487910ae4366
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	50623	0x03f3	0x12	0x0013	0x180a	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	50654	0x0001	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	51226	0x000d	0x1d	0x0003	0x1800	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	54439	0x002d	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	54442	0x002d	0x12	0x0018	0x180f	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	54445	0x002d	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	55886	0x0034	0x12	0x0009	0x1801	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	55889	0x0034	0x12	0x0018	0x180f	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	55892	0x0034	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	58246	0x0048	0x12	0x001c	0xffe0	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	58271	0x0048	0x52	0x0020	0xffe5	
        Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log	58310	0x0048	0x1b	0x001b	0xffe0	
        TheoLestandi__Projet_RP__ble_capture.snoop	431	0x0010	0x12	0x0007	0x1801	
        TheoLestandi__Projet_RP__ble_capture.snoop	434	0x0010	0x0a	0x0016	0x1800	
        TheoLestandi__Projet_RP__ble_capture.snoop	437	0x0010	0x0a	0x0018	0x1800	
        TheoLestandi__Projet_RP__ble_capture.snoop	440	0x0010	0x0a	0x009c	0x1111	
        bbmp__AndroidPad__btsnoop_hci.cfa	545	0x0040	0x12	0x001a	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	548	0x0040	0x1b	0x0019	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	551	0x0040	0x52	0x0010	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	7748	0x0042	0x12	0x001a	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	7750	0x0042	0x1b	0x0019	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	7754	0x0042	0x52	0x0010	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	13172	0x0041	0x12	0x001a	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	13176	0x0041	0x1b	0x0019	0xfff0	
        bbmp__AndroidPad__btsnoop_hci.cfa	13179	0x0041	0x52	0x0010	0xfff0	
        cheoljun99__bluetooth-pcap-test__bluetooth-infocar.pcap	1	0x000a	0x1b	0x0014		
        cheoljun99__bluetooth-pcap-test__bluetooth-infocar.pcap	3	0x000a	0x52	0x0017		
        cheoljun99__bluetooth-pcap-test__bluetooth-infocar.pcap	757	0x0edc	0x0a	0x00ff		
        cnrd__yeelock__btsnoop_hci.log	502	0x003a	0x12	0x0010		58af3dca6fc04fa3946474662f043a39
        cnrd__yeelock__btsnoop_hci.log	505	0x003a	0x1d	0x000c		58af3dca6fc04fa3946474662f043a39
        cnrd__yeelock__btsnoop_hci.log	638	0x02dd	0x12	0x0010		58af3dca6fc04fa3946474662f043a39
        cnrd__yeelock__btsnoop_hci.log	642	0x02dd	0x1d	0x000c		58af3dca6fc04fa3946474662f043a39
        crossnite__NovaX-Escooter__btsnoop_hci.log	688	0x0002	0x12	0x0011	0x2c00	
        crossnite__NovaX-Escooter__btsnoop_hci.log	730	0x0002	0x12	0x0010	0x2c00	
        csacca__horizon-74-at-ble__btsnoop_hci.log	734	0x0200	0x12	0x0015	0xfff0	
        csacca__horizon-74-at-ble__btsnoop_hci.log	737	0x0200	0x1b	0x0012	0xfff0	
        csacca__horizon-74-at-ble__btsnoop_hci.log	739	0x0200	0x12	0x0011	0xfff0	
        csacca__horizon-74-at-ble__btsnoop_hci.log	743	0x0200	0x1b	0x0014	0xfff0	
        dandwhelan__fossibot-bluetooth__btsnoop_hci.log	4542	0x0041	0x1d	0x0003	0x1801	
        dandwhelan__fossibot-bluetooth__btsnoop_hci.log	4590	0x0041	0x12	0x0039	0xa002	
        dandwhelan__fossibot-bluetooth__btsnoop_hci.log	8035	0x0041	0x1b	0x0038	0xa002	
        dandwhelan__fossibot-bluetooth__btsnoop_hci.log	8146	0x0041	0x12	0x0036	0xa002	
        danisla__iot-bed__btsnoop_hci.log	282	0x0002	0x1b	0x001b	0xffe0	
        danisla__iot-bed__btsnoop_hci.log	333	0x0002	0x12	0x0020	0xffe5	
        havvk__even-g2-smart-classroom__bt3.pklg	194	0x0048	0x12	0x0845		
        havvk__even-g2-smart-classroom__bt3.pklg	219	0x0048	0x12	0x0825		
        havvk__even-g2-smart-classroom__bt3.pklg	244	0x0048	0x12	0x0865		
        havvk__even-g2-smart-classroom__bt3.pklg	260	0x004b	0x1d	0x0008		
        havvk__even-g2-smart-classroom__bt3.pklg	288	0x004b	0x12	0x0013		
        havvk__even-g2-smart-classroom__bt3.pklg	298	0x0048	0x12	0x0885		
        havvk__even-g2-smart-classroom__bt3.pklg	321	0x004b	0x12	0x0009		
        havvk__even-g2-smart-classroom__bt3.pklg	325	0x0048	0x52	0x0842		
        havvk__even-g2-smart-classroom__bt3.pklg	331	0x0048	0x1b	0x0844		
        havvk__even-g2-smart-classroom__bt3.pklg	410	0x004b	0x12	0x0845		
        havvk__even-g2-smart-classroom__bt3.pklg	418	0x004b	0x12	0x0825		
        havvk__even-g2-smart-classroom__bt3.pklg	425	0x004b	0x12	0x0865		
        havvk__even-g2-smart-classroom__bt3.pklg	428	0x004b	0x12	0x0885		
        havvk__even-g2-smart-classroom__bt3.pklg	432	0x004b	0x52	0x0842		
        havvk__even-g2-smart-classroom__bt3.pklg	437	0x004b	0x1b	0x0844		
        havvk__even-g2-smart-classroom__bt3.pklg	551	0x004b	0x1b	0x0864		
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	246	0x0edc	0x0a	0x02ff		
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	326	0x0002	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	336	0x0002	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	338	0x0002	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	443	0x0003	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	453	0x0003	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	455	0x0003	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	654	0x0004	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	663	0x0004	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	668	0x0004	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	960	0x0005	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	972	0x0005	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	986	0x0005	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	1783	0x0007	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	1793	0x0007	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	1796	0x0007	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	3310	0x0008	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	3321	0x0008	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	3323	0x0008	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	6098	0x0009	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	6192	0x0009	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	6206	0x0009	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	9219	0x000a	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	9315	0x000a	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	9324	0x000a	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	11538	0x000b	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	11580	0x000b	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	11582	0x000b	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	14028	0x000c	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	14039	0x000c	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	14041	0x000c	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	16007	0x000e	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	16017	0x000e	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	16019	0x000e	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	16026	0x0edc	0x0a	0x04ff	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17391	0x0010	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17401	0x0010	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17403	0x0010	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17774	0x0011	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17785	0x0011	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	17787	0x0011	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	18863	0x0edc	0x0a	0x10ff	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	23004	0x0014	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	23014	0x0014	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	23017	0x0014	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	23313	0x0edc	0x0a	0x00ff	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	25779	0x0006	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	25789	0x0006	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	25791	0x0006	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27247	0x000b	0x0a	0x0003	0x1800	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27250	0x000b	0x0a	0x0013	0xae30	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27253	0x000b	0x12	0x0009	0xae30	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27256	0x000b	0x12	0x000e	0xae30	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27259	0x000b	0x12	0x0011	0xae30	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	27262	0x000b	0x12	0x0045	0xae3a	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28046	0x000d	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28057	0x000d	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28060	0x000d	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28979	0x000f	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28989	0x000f	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	28991	0x000f	0x1b	0x0084	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	30705	0x0012	0x12	0x0085	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	30715	0x0012	0x52	0x0082	0xae00	
        jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log	30718	0x0012	0x1b	0x0084	0xae00	
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	242	0x0003	0x12	0x0000		
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	287	0x0003	0x12	0x0013	0x0af0	
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	290	0x0003	0x12	0x0016	0x0af0	
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	293	0x0003	0x12	0x0010	0x0af0	
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	296	0x0003	0x1b	0x0012	0x0af0	
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	318	0x0003	0x12	0x0018	0x0af0	
        lory9894__airbily_smartwatch_reverse__bluethoot_logs.pcapng	321	0x0003	0x1b	0x0015	0x0af0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	424	0x0003	0x12	0x002f	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	427	0x0003	0x12	0x0025	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	430	0x0003	0x1b	0x002e	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	835	0x0006	0x12	0x002f	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	838	0x0006	0x12	0x0025	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	841	0x0006	0x1b	0x002e	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	1053	0x0007	0x12	0x002f	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	1065	0x0007	0x12	0x0025	0xfff0	
        mchwalisz__lightsapp-cli__btsnoop_hci.log	1068	0x0007	0x1b	0x002e	0xfff0	
        phlash__blefun__btsnoop_hci.log	485	0x0002	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	488	0x0002	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	491	0x0002	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	494	0x0002	0x12	0x0010		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	598	0x0003	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	602	0x0003	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	605	0x0003	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	608	0x0003	0x12	0x0010		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	720	0x0004	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	837	0x0004	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	841	0x0004	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	844	0x0004	0x12	0x001d		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	847	0x0004	0x12	0x001c		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1003	0x0005	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1006	0x0005	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1009	0x0005	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1012	0x0005	0x12	0x001d		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1015	0x0005	0x12	0x001c		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1470	0x0006	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1474	0x0006	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1483	0x0006	0x12	0x001d		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1486	0x0006	0x12	0x001c		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1604	0x0007	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1607	0x0007	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1610	0x0007	0x12	0x0010		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	1613	0x0007	0x52	0x000e		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18842	0x0008	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18846	0x0008	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18855	0x0008	0x12	0x001d		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18858	0x0008	0x12	0x001c		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18976	0x0009	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18979	0x0009	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18983	0x0009	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	18986	0x0009	0x12	0x0010		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19097	0x000a	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19101	0x000a	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19104	0x000a	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19107	0x000a	0x12	0x001d		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19110	0x000a	0x12	0x001c		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19750	0x000b	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19753	0x000b	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19756	0x000b	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19759	0x000b	0x12	0x001d		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	19762	0x000b	0x12	0x001c		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	20456	0x000d	0x12	0x0015		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	20460	0x000d	0x12	0x0011		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	20463	0x000d	0x0a	0x0013		00020001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	20466	0x000d	0x12	0x001d		00010001574f4f2053706865726f2121
        phlash__blefun__btsnoop_hci.log	20469	0x000d	0x12	0x001c		00010001574f4f2053706865726f2121
        soaresden__IX7TrackerPro__btsnoop_hci.log	356	0x0033	0x12	0x008e		
        soaresden__IX7TrackerPro__btsnoop_hci.log	359	0x0033	0x12	0x008b		
        soaresden__IX7TrackerPro__btsnoop_hci.log	362	0x0033	0x52	0x008d		
        soaresden__IX7TrackerPro__btsnoop_hci.log	574	0x0033	0x1d	0x0003		
        soaresden__IX7TrackerPro__btsnoop_hci.log	1664	0x0201	0x52	0x0010		6e400001b5a3f393e0a9e50e24dcca9e
        soaresden__IX7TrackerPro__btsnoop_hci.log	1669	0x0201	0x12	0x0014		6e400001b5a3f393e0a9e50e24dcca9e
        soaresden__IX7TrackerPro__btsnoop_hci.log	1671	0x0201	0x1b	0x0013		6e400001b5a3f393e0a9e50e24dcca9e
        syssi__esphome-lumentree__btsnoop_hci.log	33	0x0040	0x12	0x002b	0xffe0	
        syssi__esphome-lumentree__btsnoop_hci.log	39	0x0040	0x52	0x002a	0xffe0	
        wangdalian__btsnooper__btsnoop_hci.log	132	0x0edc	0x0a	0xf000		
        wangdalian__btsnooper__btsnoop_hci.log	464	0x0002	0x1b	0x0017		
        wangdalian__btsnooper__btsnoop_hci.log	585	0x0002	0x12	0x0018	0xf100	
        wangdalian__btsnooper__btsnoop_hci.log	588	0x0002	0x12	0x0020	0xfff0	
        wangdalian__btsnooper__btsnoop_hci.log	591	0x0002	0x12	0x002b	0xf200	
        wangdalian__btsnooper__btsnoop_hci.log	595	0x0002	0x52	0x001b	0xf100	
        wangdalian__btsnooper__btsnoop_hci.log	597	0x0002	0x1b	0x0017	0xf100	
        wangdalian__btsnooper__btsnoop_hci.log	639	0x0002	0x52	0x002f		000102030405060708090a0b0c0d1912
        wangdalian__btsnooper__btsnoop_hci.log	6996	0x0003	0x1b	0x0017	0xf100	
        wangdalian__btsnooper__btsnoop_hci.log	7118	0x0003	0x12	0x0018	0xf100	
        wangdalian__btsnooper__btsnoop_hci.log	7121	0x0003	0x12	0x0020	0xfff0	
        wangdalian__btsnooper__btsnoop_hci.log	7124	0x0003	0x12	0x002b	0xf200	
        wangdalian__btsnooper__btsnoop_hci.log	7128	0x0003	0x52	0x001b	0xf100	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	331	0x0041	0x12	0x000c		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	335	0x0041	0x1d	0x000b		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	339	0x0041	0x12	0x0008		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	684	0x0042	0x12	0x0028		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	689	0x0042	0x12	0x002e		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	694	0x0042	0x12	0x002b		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	703	0x0042	0x12	0x0027		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	711	0x0042	0x1b	0x002a		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	725	0x0043	0x12	0x0013	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	764	0x0043	0x12	0x0018	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	765	0x0042	0x12	0x0012	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	766	0x0043	0x1b	0x0012	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	772	0x0042	0x12	0x0021	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	778	0x0042	0x12	0x001b	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	787	0x0042	0x12	0x001e	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	796	0x0042	0x12	0x0024	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	799	0x0042	0x12	0x0018	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	810	0x0042	0x12	0x0015	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	815	0x0042	0x1b	0x0014	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	839	0x0042	0x1b	0x001d	0x180a	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1063	0x0041	0x1d	0x0003	0x1801	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1064	0x0042	0x1d	0x0003	0x1801	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1065	0x0043	0x1d	0x0003	0x1801	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1127	0x0044	0x12	0x000d	0x1801	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1133	0x0044	0x0a	0x0052		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1138	0x0044	0x12	0x0054		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1143	0x0044	0x12	0x0045		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1148	0x0044	0x1b	0x0044		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1149	0x0044	0x52	0x0042		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1169	0x0044	0x0a	0x0035		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1216	0x0044	0x12	0x00a2		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1221	0x0044	0x0a	0x00a1		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1224	0x0044	0x12	0x00a5		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1227	0x0044	0x0a	0x00a4		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1233	0x0044	0x12	0x00a8		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	1235	0x0044	0x12	0x0004		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	2048	0x0041	0x12	0x0008		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5958	0x0042	0x12	0x000d		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5964	0x0042	0x0a	0x0052		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5970	0x0042	0x12	0x0054		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5977	0x0042	0x12	0x0045		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5982	0x0042	0x1b	0x0044		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5983	0x0042	0x52	0x0042		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	5999	0x0042	0x0a	0x0035		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6067	0x0042	0x12	0x00a2		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6096	0x0042	0x0a	0x00a1		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6103	0x0042	0x12	0x00a5		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6113	0x0042	0x0a	0x00a4		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6121	0x0042	0x12	0x00a8		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6127	0x0042	0x12	0x0004	0x1801	
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6235	0x0043	0x12	0x0028		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6237	0x0043	0x12	0x002e		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6240	0x0043	0x12	0x002b		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6242	0x0043	0x12	0x0027		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6248	0x0043	0x1b	0x002a		0898203aef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6311	0x0043	0x12	0x0012		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6314	0x0043	0x12	0x0021		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6323	0x0043	0x12	0x001b		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6348	0x0043	0x12	0x001e		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6377	0x0041	0x12	0x0008		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6379	0x0043	0x12	0x0024		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6395	0x0043	0x12	0x0018		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6411	0x0043	0x12	0x0015		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6414	0x0043	0x1b	0x0017		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6420	0x0043	0x1b	0x0014		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6432	0x0043	0x12	0x0011		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6435	0x0043	0x1b	0x001a		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6442	0x0043	0x1b	0x001d		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6573	0x0042	0x12	0x000d		00000211b2d143f09b88960cebf8b91e
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6683	0x0042	0x12	0x0004		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6837	0x0041	0x1d	0x000b		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	6840	0x0041	0x12	0x0008		
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7578	0x0043	0x12	0x0024		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7581	0x0043	0x12	0x0018		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7584	0x0043	0x1b	0x0017		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7586	0x0043	0x12	0x0015		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7591	0x0043	0x1b	0x0014		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7592	0x0043	0x12	0x0011		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7595	0x0043	0x1b	0x001a		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7600	0x0043	0x1b	0x001d		089810ccef8911e981b42a2ae2dbcce4
        whoisbe__pongbot-mcp__btsnoop_hci.log.last	7663	0x0041	0x1d	0x000b	0x1800	
        zabbits__btsnoop__btsnoop_hci.cfa	159	0x0edc	0x0a	0x00ff		
        zabbits__btsnoop__btsnoop_hci.cfa	1927	0x0edc	0x0a	0x09ff		
        """
}
