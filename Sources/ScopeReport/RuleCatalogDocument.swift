import ScopeCore
import ScopeRules

/// The rule catalog as people read it: `hciscope rules` (list, one rule), `--markdown` (which is
/// docs/RULES.md, generated from this and checked by a test) and `--json`. Everything comes from
/// the rules themselves (`RuleRegistry`, each rule's `documentation` and `defaultThresholds`) and
/// from the analysis and radio model it describes; nothing is written twice.
package enum RuleCatalogDocument {
    static var rules: [any Rule.Type] { RuleRegistry.all }

    // MARK: - Text (terminal)

    /// `hciscope rules`: one line per rule.
    package static func list() -> String {
        let width = rules.map { $0.id.count }.max() ?? 0
        var out = "Rules (\(rules.count)); `hciscope rules RULE` explains one, docs/RULES.md has them all.\n\n"
        for rule in rules {
            let pad = String(repeating: " ", count: width - rule.id.count)
            out += "  \(rule.id)\(pad)  \(severityText(rule).padding(toLength: 8, withPad: " ", startingAt: 0))  \(rule.summary)\n"
        }
        return out
    }

    /// `hciscope rules RULE`: everything about one rule, wrapped for a terminal.
    package static func text(_ rule: any Rule.Type) -> String {
        let d = rule.documentation
        var out = "\(rule.id) — \(d.title)\n"
        out += "  \(rule.summary). Default severity: \(d.severity).\n"
        out += "  Guidance \(rule.guidance): \(Guidance.themes[rule.guidance] ?? "")\n\n"
        func section(_ title: String, _ body: String) {
            out += "\(title)\n" + wrap(body, indent: "  ") + "\n"
        }
        section("Judges", d.subject)
        out += "Reads\n" + d.evidence.map { wrap("- " + $0, indent: "  ", hanging: "    ") }.joined(separator: "\n") + "\n"
        section("Violated when", d.violated)
        section("Passes when", d.passed)
        section("Not evaluated when", d.notEvaluated)
        if !d.thresholds.isEmpty {
            out += "Thresholds (hciscope.yml: rules.\(rule.id).KEY)\n"
            for t in d.thresholds {
                let value = rule.defaultThresholds[t.key].map { "\($0)" } ?? "?"
                out += wrap("- \(t.key) = \(value): \(t.meaning)", indent: "  ", hanging: "    ") + "\n"
            }
        }
        section("Why it matters", d.why)
        for a in d.advice {
            out += "\(a.platform.name)\n"
            out += wrap("cause: " + a.cause, indent: "  ", hanging: "         ") + "\n"
            out += wrap("fix: " + a.fix, indent: "  ", hanging: "       ") + "\n"
            if let s = a.stackDoes { out += wrap("the stack itself: " + s, indent: "  ", hanging: "    ") + "\n" }
        }
        if !d.attribution.isEmpty {
            out += "Attributed to the platform, not the app\n"
            for a in d.attribution { out += wrap("- \(a.platformName): \(a.text)", indent: "  ", hanging: "    ") + "\n" }
        }
        return out
    }

    static func severityText(_ rule: any Rule.Type) -> String { rule.defaultSeverity.rawValue }

    /// Greedy word wrap at 100 columns.
    static func wrap(_ text: String, indent: String, hanging: String? = nil, width: Int = 100) -> String {
        var lines: [String] = []
        var line = indent
        var lineHasWords = false
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if lineHasWords && line.count + 1 + word.count > width {
                lines.append(line)
                line = (hanging ?? indent)
                lineHasWords = false
            }
            line += (lineHasWords ? " " : "") + word
            lineHasWords = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    // MARK: - JSON

    /// `hciscope rules --json`: every rule with its documentation and defaults.
    package static func json() -> String {
        var w = JSONWriter()
        w.beginArray()
        for rule in rules {
            let d = rule.documentation
            w.beginObject()
            w.field("id", rule.id)
            w.field("title", d.title)
            w.field("summary", rule.summary)
            w.field("guidance", rule.guidance)
            w.field("default_severity", rule.defaultSeverity.rawValue)
            w.field("severity", d.severity)
            w.field("subject", d.subject)
            w.beginArray("evidence")
            for e in d.evidence { w.element(e) }
            w.endArray()
            w.field("violated", d.violated)
            w.field("passed", d.passed)
            w.field("not_evaluated", d.notEvaluated)
            w.beginArray("thresholds")
            for t in d.thresholds {
                w.beginObject()
                w.field("key", t.key)
                w.field("config", "rules.\(rule.id).\(t.key)")
                w.field("default", rule.defaultThresholds[t.key].map { "\($0)" } ?? "")
                w.field("meaning", t.meaning)
                w.endObject()
            }
            w.endArray()
            w.field("why", d.why)
            w.beginArray("advice")
            for a in d.advice {
                w.beginObject()
                w.field("platform", a.platform.rawValue)
                w.field("cause", a.cause)
                w.field("fix", a.fix)
                if let stack = a.stackDoes { w.field("stack_does", stack) } else { w.null("stack_does") }
                w.endObject()
            }
            w.endArray()
            w.beginArray("attribution")
            for a in d.attribution {
                w.beginObject()
                if let p = a.platform { w.field("platform", p.rawValue) } else { w.null("platform") }
                w.field("text", a.text)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        return w.output + "\n"
    }

    // MARK: - Markdown (docs/RULES.md)

    /// docs/RULES.md, whole.
    package static func markdown() -> String {
        var out = """
            # Rules and metrics

            <!-- Generated by `hciscope rules --markdown` from the rule catalog (Sources/ScopeRules/Documentation).
                 Do not edit: a test checks that this file equals the generated text. -->

            `hciscope analyze` judges what a capture shows against \(rules.count) rules of good radio use. They \
            restate, as checks on HCI traffic from any stack, the guidance Apple gives Core Bluetooth developers \
            for being a good citizen of the radio — scan only when needed, discover only what you use, subscribe \
            instead of polling, disconnect when done, bound connection attempts, advertise little and only when \
            wanted, pair securely, move bulk data efficiently — and apply it to Android, BlueZ and embedded stacks \
            as well. Every finding names the frames that prove it, so the same frames can be opened in Wireshark \
            or btmon.

            **Who did it.** A phone's capture holds the operating system's own scans, advertising and \
            connections, the peer's behaviour and the app's. Every finding carries an `actor` — `app`, `os` (the \
            local platform's own Bluetooth activity), `peer` (the remote device) or `unknown` (the frames cannot \
            tell the app from the system: judged as the app's, and said so) — decided from the frames by the \
            signatures of docs/ATTRIBUTION.md (scans the stack starts after a reset and resumes with the same \
            parameters, controller-filtered scans, system advertising payloads, accept-list reconnections, the \
            remote central or GATT client, the side whose pairing PDU lacked a feature). The report for people \
            shows the app's findings and sums the system's and the peer's activity in a few lines; `--fail-on` \
            counts the app's and the unknown ones unless `--judge all`; JSON lists every finding with its actor. \
            The GATT/ATT rules judge whichever side is the GATT client on a connection (the local host acts as \
            client when it sends at least one ATT request or command there). BR/EDR links are listed, never \
            judged by LE rules; nor is a link set up before the capture began until something LE-only crosses it \
            (ATT, LE signalling or SMP on their fixed channels, an LE connection event).

            **Verdicts.** Each rule gives one verdict per capture: `violated` (with findings, each with a severity \
            and its evidence frames), `passed` (its subject is in the capture and nothing fired; the reason says \
            what was checked) or `not_evaluated` (its subject is absent, or cannot be judged: the setup was not \
            captured, or an Android filtered snoop log cut ACL short so ATT cannot be read).

            **Configuration.** Every threshold below can be changed per project in `hciscope.yml` \
            (`rules.RULE.KEY: value`), as can each rule's `enabled` and `severity`; `profile: ios` selects the iOS \
            advertising budget; `sensitive_characteristics` lists characteristic UUIDs whose protection matters \
            (docs/CONFIG.md). `hciscope rules RULE` prints one rule's section in a terminal.

            **Which stack made the capture.** Advice speaks the API of the host stack that recorded the capture, \
            worked out from decoded evidence and shown in every report with that evidence (`analyze --platform \
            ios|android|bluez|embedded` overrides it): *iOS / macOS*, certain from little-endian PacketLogger \
            records or a sysdiagnose, likely from big-endian PacketLogger; *Android*, certain from the Android \
            vendor commands (OGF 0x3F, OCF 0x153–0x15F), a bug report or a btsnooz summary, likely from btsnoop \
            1002 written by a dual-mode host that sets up BR/EDR; *Linux (BlueZ)*, certain from MGMT traffic on the \
            monitor channel, likely from a bare monitor capture (btsnoop 2001, pcap 254); *embedded*, certain from \
            BTstack's own packets or an HCI user channel; otherwise unknown (two certain platforms that disagree \
            give unknown too). PacketLogger notes (Product, Software, Bluetooth Host) and the Linux monitor's notes \
            name the device, OS version and host build where the capture records them.

            ## The guidance

            """
        out += "\n"
        for n in Guidance.themes.keys.sorted() { out += "\(n). \(Guidance.themes[n] ?? "")\n" }
        out += "\n## Rules\n\n| rule | guidance | judges | severity |\n|---|---|---|---|\n"
        for rule in rules {
            out += "| [`\(rule.id)`](#\(anchor(rule.id))) | \(rule.guidance) | \(cell(rule.summary)) | \(cell(rule.documentation.severity)) |\n"
        }
        for rule in rules { out += "\n" + markdown(rule) }
        out += "\n" + metricsMarkdown + "\n" + radioModelMarkdown
        return out
    }

    /// One rule's section of docs/RULES.md.
    package static func markdown(_ rule: any Rule.Type) -> String {
        let d = rule.documentation
        var out = "### `\(rule.id)`\n\n"
        out += "**\(d.title).** \(rule.summary). Guidance \(rule.guidance); default severity \(d.severity).\n\n"
        out += "- **Judges:** \(d.subject)\n"
        out += "- **Reads:** " + d.evidence.joined(separator: "; ") + ".\n"
        out += "- **Violated when:** \(d.violated)\n"
        out += "- **Passes when:** \(d.passed)\n"
        out += "- **Not evaluated when:** \(d.notEvaluated)\n"
        if !d.thresholds.isEmpty {
            out += "\n| threshold (`rules.\(rule.id).KEY`) | default | meaning |\n|---|---|---|\n"
            for t in d.thresholds {
                let value = rule.defaultThresholds[t.key].map { "\($0)" } ?? ""
                out += "| `\(t.key)` | \(value) | \(cell(t.meaning)) |\n"
            }
        }
        out += "\n**Why it matters.** \(d.why)\n\n"
        out += "| platform | what usually causes it | fix | what the stack does by itself |\n|---|---|---|---|\n"
        for a in d.advice {
            out += "| \(a.platform.name) | \(cell(a.cause)) | \(cell(a.fix)) | \(cell(a.stackDoes ?? "—")) |\n"
        }
        if !d.attribution.isEmpty {
            out += "\n**Attributed to the platform, not the app** (counted in the verdict's reason, or graded down):\n\n"
            for a in d.attribution { out += "- *\(a.platformName)*: \(a.text)\n" }
        }
        return out
    }

    /// GitHub's heading anchor for `### \`id\``.
    static func anchor(_ id: String) -> String { id.replacingOccurrences(of: ".", with: "") }

    static func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }

    // MARK: - Metrics and the radio-time model

    static var metricsMarkdown: String {
        """
        ## Metrics every report contains

        Times come from the capture's timestamps; reports show them relative to frame 1, and every figure \
        names the frames it came from.

        - **Scan sessions.** A session starts at an LE Set Scan Enable or LE Set Extended Scan Enable that turns \
        scanning on and whose Command Complete reports success, and stops at the one that turns it off (its \
        reports are those up to that Command Complete) or at the last frame. Per session: active or passive, \
        interval and window per PHY, duty cycle (window ÷ interval), the duplicate filter setting, duration, \
        advertising reports, reports per second, devices seen.
        - **Devices.** Every advertiser (address and address type): reports, first and last seen, distinct \
        payloads, RSSI range, decoded advertising data (name, service UUIDs, manufacturer, flags, TX power). \
        Addresses that an IRK distributed in the capture resolves are shown with their identity.
        - **Duplicate-scan overhead.** A report is a duplicate when the same device sent the same event type \
        and the same data earlier in the same session: duplicates, their share of all reports, per second, and \
        the HCI event bytes spent on them.
        - **Discovery cost** (per device the host asked to connect to): time from the start of the scan \
        session in which it was found to the connection request; advertising reports processed until then; \
        scan radio-on time spent until then (estimated, below); time from the device's first report to the \
        request — how long the app took to decide. Only a scan that led to the request counts: not one \
        before the device's previous connection (the request reconnects it), not one that stopped more than \
        60 s before the request, and not the system's own background scan (named apart: "found only by the \
        system's own scan"); a request with none of its own is a direct connection.
        - **Connection timing.** Request → connection complete (setup), then, counted from the connection \
        complete: first ATT PDU, end of the local GATT client's discovery, first useful data the local host \
        received (a read response or notification with a value; the peer discovering or reading the local GATT \
        server is the peer's, and not counted); lifetime (to the Disconnection Complete, not the Disconnect \
        command); idle tail (last \
        ACL payload → disconnection); interval, latency, supervision timeout and every update; PHY and data \
        length changes; ATT_MTU (23 until an exchange); encryption; disconnection reason and which side asked.
        - **GATT.** Discovery procedures (full-range Read By Group Type or Find By Type Value), their round \
        trips and time; services and characteristics discovered and later used; reads, writes (with and \
        without response), notifications and indications per handle; the database reconstructed per peer.
        - **Pairing.** IO capabilities, bonding, MITM and Secure Connections flags, key sizes and keys \
        distributed, the association model the Core specification's tables give (Just Works, Passkey Entry, \
        Numeric Comparison, OOB), outcome and failure reason, duration. A pairing succeeds when an Encryption \
        Change (or, on a link already encrypted, an Encryption Key Refresh Complete) with status 0x00 follows.
        - **Advertising** (captures taken on the advertiser): data and scan response sizes and elements, \
        interval, time enabled, connections that arrived, estimated airtime.
        - **Capture health.** Records cut short (Android filtered snoop logs cut ACL to a few bytes: ATT \
        analysis is then impossible, and the rules that need it say so), dropped-packet counters, timestamps \
        going backwards, implausible years, the known ±378-day btsnoop epoch skew, clock jumps of a day or \
        more, records of unknown type.

        """
    }

    static var radioModelMarkdown: String {
        """
        ## The radio-time model

        Some figures are estimates of how long the radio was busy. Reports print the word "estimated" next \
        to them, with the inputs they came from.

        - **Scanning:** radio-on time = scan duration × window ÷ interval, summed over the PHYs of an \
        extended scan and capped at the duration.
        - **Advertising** (legacy, 1M PHY): each advertising event sends one PDU on each of the \
        \(RadioModel.advertisingChannels) primary channels; a PDU is \(RadioModel.legacyAdvOverheadBytes) \
        bytes of preamble, access address, header, advertiser address and CRC plus the advertising data, at \
        8 µs per byte. Events follow each other every interval + \(RadioModel.meanAdvDelayMicros / 1000).\
        \(RadioModel.meanAdvDelayMicros % 1000 / 100) ms (the mean of the random advDelay).
        - **Connection:** events = lifetime ÷ connection interval; an empty event costs about \
        \(RadioModel.emptyEventMicros) µs on air (two empty packets of 80 µs and the 150 µs gap between \
        them); ATT data adds its bytes (value + 3 bytes of ATT and 4 of L2CAP header) at 8 µs per byte on the \
        1M PHY, 4 µs on 2M.

        """
    }
}
