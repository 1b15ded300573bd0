import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import DarkroomImaging
import TestSupport

/// nginx with proxy_cache in front of two `darkroom serve` processes, as
/// docs/deploy.md sets it up for production.
@Suite(.serialized) struct CacheInFrontTests {
    func get(_ client: HTTPClient, _ url: String) async throws -> (status: Int, headers: [String: String], body: Data) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 50 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return (Int(response.status.code), headers, Data(body.readableBytesView))
    }

    /// Requests for image URLs a server has answered, from its /metrics.
    func imageRequests(_ client: HTTPClient, port: Int) async throws -> Int {
        let metrics = String(decoding: try await get(client, "http://127.0.0.1:\(port)/metrics").body, as: UTF8.self)
        return metrics.split(separator: "\n")
            .filter { $0.hasPrefix("hb_requests{") && $0.contains("http_route=\"/img/**\"") }
            .compactMap { Double($0.split(separator: " ").last ?? "") }
            .reduce(0) { $0 + Int($1) }
    }

    /// The tail of a log file, for a failure's message.
    func tail(_ file: URL) -> String {
        String(((try? String(contentsOf: file, encoding: .utf8)) ?? "(no log)").suffix(1500))
    }

    /// docs/deploy.md shows the configuration this test runs, not an older one.
    @Test func theGuideShowsTheFileThatRuns() throws {
        let file = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("docs/nginx.conf"), encoding: .utf8)
        let guide = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("docs/deploy.md"), encoding: .utf8)
        let body = file.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(guide.contains("```nginx\n\(body)\n```"), "docs/deploy.md's nginx block is not docs/nginx.conf")
    }

    /// Everything the test starts (the origin, the servers, nginx, the
    /// client) is ended on every path: one failure stays this test's.
    @Test func aSecondRequestIsAnNginxHitAndTheServersSawOne() async throws {
        let nginx = URL(fileURLWithPath: "/usr/sbin/nginx")
        try #require(FileManager.default.isExecutableFile(atPath: nginx.path), "nginx is installed by scripts/bootstrap")
        let folder = try Fixtures.temporaryFolder("darkroom-nginx")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: Corpus.root)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let servers = Locked<[ServingProcess]>([])
        let proxy = Process()
        try await cleaningUp({
            await DarkroomProcess.stop(proxy, signal: SIGQUIT)
            for server in servers.withLock({ $0 }) { await server.stop(signal: SIGKILL) }
            try? await client.shutdown()
            await origin.stop()
        }) {
            for i in 0..<2 {
                let server = try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache\(i)").path,
                                                             "--allow-private-networks"], log: folder.appendingPathComponent("server\(i).log"))
                servers.withLock { $0.append(server) }
            }
            let started = servers.withLock { $0 }
            let ports = started.map(\.port)

            let front = try LoopbackPort.free()
            let configuration = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("docs/nginx.conf"), encoding: .utf8)
                .replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(front);")
                .replacingOccurrences(of: "server 127.0.0.1:8081 ", with: "server 127.0.0.1:\(ports[0]) ")
                .replacingOccurrences(of: "server 127.0.0.1:8082 ", with: "server 127.0.0.1:\(ports[1]) ")
                .replacingOccurrences(of: "/var/cache/nginx/darkroom", with: folder.appendingPathComponent("nginx-cache").path)
            // One nginx process (no master and workers): the test process's
            // death ends it (TiedProcess), where a worker would outlive its
            // master.
            let wrapped = """
            daemon off;
            master_process off;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/nginx-error.log info;
            events { worker_connections 64; }
            http {
                access_log \(folder.path)/nginx-access.log;
                client_body_temp_path \(folder.path)/tmp-body;
                proxy_temp_path \(folder.path)/tmp-proxy;
                fastcgi_temp_path \(folder.path)/tmp-fastcgi;
                uwsgi_temp_path \(folder.path)/tmp-uwsgi;
                scgi_temp_path \(folder.path)/tmp-scgi;
            \(configuration)
            }
            """
            let confFile = folder.appendingPathComponent("nginx.conf")
            try wrapped.write(to: confFile, atomically: true, encoding: .utf8)
            proxy.executableURL = nginx
            proxy.arguments = ["-e", folder.appendingPathComponent("nginx-error.log").path, "-p", folder.path, "-c", confFile.path]
            proxy.standardOutput = FileHandle.nullDevice
            proxy.standardError = FileHandle.nullDevice
            proxy.environment = TiedProcess.environment()
            try TiedProcess.run(proxy)
            try #require(await eventually(120) { LoopbackPort.isListening(front) }, "nginx listens: \(tail(folder.appendingPathComponent("nginx-error.log")))")

            let url = "http://127.0.0.1:\(front)/img/_/rs:fill:200:150/sepia:0.8/plain/\(origin.url("/photos/LadyBird.jpg").absoluteString)@jpg"
            let first = try await get(client, url)
            let second = try await get(client, url)
            let logs = """
                first \(first.status) \(String(decoding: first.body.prefix(300), as: UTF8.self)); \
                nginx: \(tail(folder.appendingPathComponent("nginx-error.log"))) \(tail(folder.appendingPathComponent("nginx-access.log"))); \
                servers: \(started.map { tail($0.log) }.joined(separator: " | "))
                """
            #expect(first.status == 200 && second.status == 200, "\(logs)")
            #expect(first.headers["x-cache-status"] == "MISS")
            #expect(second.headers["x-cache-status"] == "HIT")
            #expect(first.body == second.body)
            let seen = try await imageRequests(client, port: ports[0]) + (try await imageRequests(client, port: ports[1]))
            #expect(seen == 1, "the two servers saw one image request between them: \(logs)")
            #expect(origin.requests("/photos/LadyBird.jpg") == 1)

            await DarkroomProcess.stop(proxy, signal: SIGQUIT)
            for server in started {
                let status = await server.stop(signal: SIGTERM, seconds: 120)
                #expect(status == 0, "SIGTERM shuts the server down gracefully")
            }
        }
    }
}
