import ArgumentParser
import Darkroom
import Foundation

/// `darkroom fetch LIST`: runs a whole photo list through the pipeline.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download and filter every photo of a list.",
        discussion: """
        LIST is a file or an http(s) URL: a property list (XML or binary) or JSON, \
        mapping names to image URLs, or an array of records with name and url (or icon). \
        Every row is processed (default: sepia 0.8) and written to --out. A second run \
        uses the disk cache. Exit code: 0 when every row ended filtered, 1 when any \
        failed, 2 for a usage error or a list that cannot be read.
        """
    )

    @Argument(help: "The photo list: a file or an http(s) URL.")
    var list: String

    @Option(name: .long, help: "Folder for the results.")
    var out: String = "darkroom-out"

    @Flag(name: .long, help: "Also write the downloaded originals.")
    var originals = false

    @Option(name: .long, help: "Downloads at once.")
    var concurrency: Int = 6

    @Option(name: .long, help: "Disk cache folder (default: $XDG_CACHE_HOME/darkroom or ~/.cache/darkroom).")
    var cacheDir: String?

    @Option(name: .long, help: ArgumentHelp("Only shard I of N (1-based): a stable split, so machines can share a list.", valueName: "I/N"))
    var shard: String?

    @Flag(name: .long, help: "Print one JSON object per row instead of a table.")
    var json = false

    @Option(name: .long, help: "Seconds a failed URL is remembered (also across runs) before it is tried again.")
    var retryAfter: Int = 300

    @OptionGroup var processing: ProcessingFlags

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard retryAfter >= 0 else { throw ValidationError("--retry-after must be 0 or more") }
        _ = try shardSpec()
    }

    func shardSpec() throws -> (index: Int, count: Int)? {
        guard let shard else { return nil }
        let parts = shard.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, (1...n).contains(i) else {
            throw ValidationError("--shard \(shard): expected I/N with 1 <= I <= N, as in 2/3")
        }
        return (i, n)
    }

    func run() async throws {
        let options = try processing.options(defaultFilters: ["sepia:0.8"])
        var photoList: PhotoList
        do {
            photoList = try await PhotoList.load(from: list)
        } catch {
            Terminal.error(error.description)
            throw ExitCode(2)
        }
        if let (index, count) = try shardSpec() {
            photoList = photoList.shard(index, of: count)
        }

        var configuration = ImagePipeline.Configuration()
        configuration.downloadConcurrency = concurrency
        configuration.failureMemory = .seconds(retryAfter)
        if let cacheDir {
            configuration.diskCache = DiskCache.Configuration(folder: URL(fileURLWithPath: cacheDir))
        }
        let pipeline: ImagePipeline
        do {
            pipeline = try ImagePipeline(configuration: configuration)
        } catch {
            throw ValidationError(error.description)
        }
        let outFolder = URL(fileURLWithPath: out)
        do {
            try FileManager.default.createDirectory(at: outFolder, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("--out \(out): cannot create the folder (\((error as NSError).localizedDescription))")
        }

        let run = FetchRun(list: photoList, pipeline: pipeline, options: options, outFolder: outFolder,
                           writeOriginals: originals, progress: json ? .none : (Terminal.isInteractive ? .bar : .lines))
        let results = await run.run()
        await pipeline.shutdown()

        if json {
            results.forEach { print($0.jsonLine) }
        } else {
            print(FetchResult.table(results))
        }
        if results.contains(where: { $0.state != "filtered" }) {
            throw ExitCode(1)
        }
    }
}
