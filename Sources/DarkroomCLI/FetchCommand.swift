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

    @Option(name: .long, help: ArgumentHelp("Folder for the results, or s3://BUCKET/PREFIX/ (credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION); in S3, rows whose result is there already are skipped.", valueName: "FOLDER or s3://BUCKET/PREFIX/"))
    var out: String = "darkroom-out"

    @Flag(name: .long, help: "Also write the downloaded originals.")
    var originals = false

    @Option(name: .long, help: "Downloads at once.")
    var concurrency: Int = 6

    @Option(name: .long, help: "Disk cache folder (default: $XDG_CACHE_HOME/darkroom or ~/.cache/darkroom).")
    var cacheDir: String?

    @Option(name: .long, help: ArgumentHelp("Only shard I of N (1-based): a stable split, so machines can share a list.", valueName: "I/N"))
    var shard: String?

    @Option(name: .long, help: ArgumentHelp("Split the list into N shards and run the one JOB_COMPLETION_INDEX names (0-based, as a Kubernetes Indexed Job sets it).", valueName: "N"))
    var shardCount: Int?

    @Option(name: .long, help: ArgumentHelp("The S3 store's address for --out s3:// (default: AWS_ENDPOINT_URL, else AWS's for the region).", valueName: "URL"))
    var s3Endpoint: String?

    @Flag(name: .long, help: "Print one JSON object per row instead of a table.")
    var json = false

    @Option(name: .long, help: "Seconds a failed URL is remembered (also across runs) before it is tried again.")
    var retryAfter: Int = 300

    @OptionGroup var processing: ProcessingFlags

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard retryAfter >= 0 else { throw ValidationError("--retry-after must be 0 or more") }
        _ = try shardSpec(environment: ProcessInfo.processInfo.environment)
        if s3Endpoint != nil, !out.hasPrefix("s3://") { throw ValidationError("--s3-endpoint needs --out s3://BUCKET/PREFIX/") }
    }

    /// `--shard I/N`, or `--shard-count N` with the index from
    /// `JOB_COMPLETION_INDEX`; 1-based.
    func shardSpec(environment: [String: String]) throws -> (index: Int, count: Int)? {
        if let shardCount {
            guard shard == nil else { throw ValidationError("--shard-count and --shard cannot be used together") }
            guard (1...100_000).contains(shardCount) else { throw ValidationError("--shard-count \(shardCount): expected 1 to 100000") }
            guard let text = environment["JOB_COMPLETION_INDEX"] else {
                throw ValidationError("--shard-count needs JOB_COMPLETION_INDEX (0-based), as a Kubernetes Indexed Job sets it")
            }
            guard let index = Int(text), (0..<shardCount).contains(index) else {
                throw ValidationError("JOB_COMPLETION_INDEX=\(text): expected a whole number from 0 to \(shardCount - 1)")
            }
            return (index + 1, shardCount)
        }
        guard let shard else { return nil }
        let parts = shard.split(separator: "/").map { Int($0) }
        guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, (1...n).contains(i) else {
            throw ValidationError("--shard \(shard): expected I/N with 1 <= I <= N, as in 2/3")
        }
        return (i, n)
    }

    /// The folder (created), or the S3 prefix (its bucket checked).
    func makeOutput() async throws -> FetchOutput {
        guard out.hasPrefix("s3://") else {
            let folder = URL(fileURLWithPath: out)
            do {
                try await BlockingExecutor.shared.run { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            } catch {
                throw ValidationError("--out \(out): cannot create the folder (\((error as NSError).localizedDescription))")
            }
            return .folder(folder)
        }
        let location: S3Location
        do {
            location = try S3Location(parsing: out)
        } catch {
            throw ValidationError("--out \(out): \(error.reason)")
        }
        let (endpoint, credentials) = try S3Store.resolve(endpoint: s3Endpoint, environment: ProcessInfo.processInfo.environment, flag: "--out \(out)")
        var configuration = S3Client.Configuration(endpoint: endpoint, bucket: location.bucket, credentials: credentials)
        // A batch waits for its writes: give each the write time limit.
        configuration.timeout = .seconds(30)
        let client: S3Client
        do {
            client = try S3Client(configuration: configuration)
        } catch {
            throw ValidationError("--out \(out): \(error.reason)")
        }
        do {
            try await client.checkBucket()
        } catch {
            await client.shutdown()
            Terminal.error("--out \(out): \(error)")
            throw ExitCode(2)
        }
        return .s3(client, prefix: location.prefix)
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
        // Names are made over the whole list, so that every shard and every
        // rerun gives a row the same one.
        var used = Set<String>()
        let stems = photoList.entries.map { SafeFileName.unique(SafeFileName.make($0.name), in: &used) }
        var selected = Array(photoList.entries.indices)
        let spec = try shardSpec(environment: ProcessInfo.processInfo.environment)
        if let (index, count) = spec {
            let ids = Set(photoList.shard(index, of: count).entries.map(\.id))
            selected = selected.filter { ids.contains(photoList.entries[$0].id) }
        }

        let output = try await makeOutput()
        var skipped: [FetchResult] = []
        do {
            let existing = try await output.existingStems()
            skipped = selected.filter { existing.contains(stems[$0]) }.map { i in
                FetchResult(row: photoList.entries[i].id, name: photoList.entries[i].name, url: photoList.entries[i].url?.absoluteString, state: .skipped,
                            reason: "already in \(output.description)")
            }
            selected = selected.filter { !existing.contains(stems[$0]) }
        } catch {
            Terminal.error("--out \(out): \(error)")
            throw ExitCode(2)
        }

        var configuration = ImagePipeline.Configuration()
        configuration.downloadConcurrency = concurrency
        configuration.failureMemory = .seconds(retryAfter)
        // A window of work, not the whole list: each result is written out
        // as it arrives and never asked for again, so the memory cache only
        // has to bridge a row's events; and downloads run ahead of the
        // filters by this many bytes, a few sources per worker.
        configuration.memoryCache.costLimit = 32 << 20
        configuration.maxSourceBytesInFlight = 64 << 20
        if let cacheDir {
            configuration.diskCache = DiskCache.Configuration(folder: URL(fileURLWithPath: cacheDir))
        }
        // The controller numbers the rows it runs from 0.
        let runList = PhotoList(entries: selected.enumerated().map { position, i in
            var entry = photoList.entries[i]
            entry.id = position
            return entry
        })
        let rowNumbers = selected.map { photoList.entries[$0].id }, runStems = selected.map { stems[$0] }
        let progress: FetchRun.Progress = json ? .none : (Terminal.isInteractive ? .bar : .lines)
        let ran: [FetchResult]
        do {
            ran = try await withImagePipeline(configuration: configuration) { pipeline in
                await FetchRun(list: runList, rowNumbers: rowNumbers, stems: runStems, pipeline: pipeline, options: options, output: output,
                               writeOriginals: originals, progress: progress).run()
            }
        } catch {
            throw ValidationError("\(error)")
        }
        let results = (ran + skipped).sorted { $0.row < $1.row }

        if case .s3(let client, _) = output {
            let summary = FetchSummary(shard: spec?.index ?? 1, shardCount: spec?.count ?? 1, rows: results.count,
                                       done: results.filter { $0.state == .filtered }.count,
                                       failed: results.filter { $0.state == .failed }.count, skipped: skipped.count)
            do {
                try await output.writeSummary(summary)
            } catch {
                Terminal.error("--out \(out): the summary could not be written: \(error)")
            }
            await client.shutdown()
        }

        if json {
            results.forEach { print($0.jsonLine) }
        } else {
            print(FetchResult.table(results))
        }
        if results.contains(where: { $0.state == .failed }) {
            throw ExitCode(1)
        }
    }
}
