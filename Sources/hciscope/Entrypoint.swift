import ScopeCommands

@main
enum Entrypoint {
    static func main() { RootCommand.main() }
}
