import ArgumentParser

public struct RootCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "hciscope",
        abstract: "Bluetooth HCI traffic recorder and protocol analyzer."
    )
    public init() {}
}
