import ArgumentParser

package struct RootCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "hciscope",
        abstract: "Bluetooth HCI traffic recorder and protocol analyzer.",
        version: BuildInfo.versionLine,
        subcommands: [Show.self, Convert.self, Analyze.self, Rules.self, Capture.self, Redact.self]
    )
    package init() {}
}
