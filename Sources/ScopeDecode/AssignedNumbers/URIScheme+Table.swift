// URI scheme name string mapping, copied from Bluetooth Assigned Numbers §2.7 (version 2026-06-23,
// assigned_numbers/core/uri_schemes.yaml). U+0001 is the "empty scheme name" (the URI spells out
// its own scheme) and has no row here; `uriSchemes[i]` is the scheme for code point U+(i + 2).

extension AssignedNumbers {
    /// Schemes for code points U+0002…U+00BC, in code point order.
    static let uriSchemes: [String] = [
        "aaa:", "aaas:", "about:", "acap:", "acct:", "cap:",  // U+0002
        "cid:", "coap:", "coaps:", "crid:", "data:", "dav:",  // U+0008
        "dict:", "dns:", "file:", "ftp:", "geo:", "go:",  // U+000E
        "gopher:", "h323:", "http:", "https:", "iax:", "icap:",  // U+0014
        "im:", "imap:", "info:", "ipp:", "ipps:", "iris:",  // U+001A
        "iris.beep:", "iris.xpc:", "iris.xpcs:", "iris.lwz:", "jabber:", "ldap:",  // U+0020
        "mailto:", "mid:", "msrp:", "msrps:", "mtqp:", "mupdate:",  // U+0026
        "news:", "nfs:", "ni:", "nih:", "nntp:", "opaquelocktoken:",  // U+002C
        "pop:", "pres:", "reload:", "rtsp:", "rtsps:", "rtspu:",  // U+0032
        "service:", "session:", "shttp:", "sieve:", "sip:", "sips:",  // U+0038
        "sms:", "snmp:", "soap.beep:", "soap.beeps:", "stun:", "stuns:",  // U+003E
        "tag:", "tel:", "telnet:", "tftp:", "thismessage:", "tn3270:",  // U+0044
        "tip:", "turn:", "turns:", "tv:", "urn:", "vemmi:",  // U+004A
        "ws:", "wss:", "xcon:", "xcon-userid:", "xmlrpc.beep:", "xmlrpc.beeps:",  // U+0050
        "xmpp:", "z39.50r:", "z39.50s:", "acr:", "adiumxtra:", "afp:",  // U+0056
        "afs:", "aim:", "apt:", "attachment:", "aw:", "barion:",  // U+005C
        "beshare:", "bitcoin:", "bolo:", "callto:", "chrome:", "chrome-extension:",  // U+0062
        "com-eventbrite-attendee:", "content:", "cvs:", "dlna-playsingle:", "dlna-playcontainer:", "dtn:",  // U+0068
        "dvb:", "ed2k:", "facetime:", "feed:", "feedready:", "finger:",  // U+006E
        "fish:", "gg:", "git:", "gizmoproject:", "gtalk:", "ham:",  // U+0074
        "hcp:", "icon:", "ipn:", "irc:", "irc6:", "ircs:",  // U+007A
        "itms:", "jar:", "jms:", "keyparc:", "lastfm:", "ldaps:",  // U+0080
        "magnet:", "maps:", "market:", "message:", "mms:", "ms-help:",  // U+0086
        "ms-settings-power:", "msnim:", "mumble:", "mvn:", "notes:", "oid:",  // U+008C
        "palm:", "paparazzi:", "pkcs11:", "platform:", "proxy:", "psyc:",  // U+0092
        "query:", "res:", "resource:", "rmi:", "rsync:", "rtmfp:",  // U+0098
        "rtmp:", "secondlife:", "sftp:", "sgn:", "skype:", "smb:",  // U+009E
        "smtp:", "soldat:", "spotify:", "ssh:", "steam:", "submit:",  // U+00A4
        "svn:", "teamspeak:", "teliaeid:", "things:", "udp:", "unreal:",  // U+00AA
        "ut2004:", "ventrilo:", "view-source:", "webcal:", "wtai:", "wyciwyg:",  // U+00B0
        "xfire:", "xri:", "ymsgr:", "example:", "ms-settings-cloudstorage:", "bluetooth:",  // U+00B6
        "bl:",  // U+00BC
    ]
}
