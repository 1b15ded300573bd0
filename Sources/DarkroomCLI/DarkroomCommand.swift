public import ArgumentParser

/// `darkroom`: fetch, filter, cache and serve photos.
public struct DarkroomCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "darkroom",
        abstract: "Fetch, filter, cache and serve photos.",
        subcommands: [ProcessCommand.self, FetchCommand.self, BookCommand.self, ServeCommand.self, CacheCommand.self, HealthCommand.self,
                      RenderPDFPageCommand.self, RenderVideoFrameCommand.self, RenderSVGCommand.self, EncodeImageCommand.self,
                      ChildSandboxCheckCommand.self]
    )

    public init() {}
}
