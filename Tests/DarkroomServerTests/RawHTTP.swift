import Foundation
import TestSupport

/// HTTP/1.1 over a plain socket, for what a client library will not do:
/// several requests written at once on one connection (pipelining).
enum RawHTTP {
    struct Answer: Equatable {
        var status: Int
        var contentType: String?
        var length: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends a GET for each path in one write, then reads one answer each.
    /// Blocking: call it off the cooperative pool.
    static func pipelined(_ paths: [String], port: Int, timeoutSeconds: Int = 60) throws -> [Answer] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "no socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try connectToLoopback(fd, port: port)
        let requests = paths.map { "GET \($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined()
        let sent = requests.utf8CString.withUnsafeBytes { send(fd, $0.baseAddress, $0.count - 1, 0) }
        guard sent == requests.utf8.count else { throw Failure(description: "short send") }

        var buffer = [UInt8]()
        var answers: [Answer] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while answers.count < paths.count {
            if let (answer, used) = parse(buffer) {
                answers.append(answer)
                buffer.removeFirst(used)
                continue
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: "connection ended after \(answers.count) answers") }
            buffer += chunk[..<count]
        }
        return answers
    }

    /// Sends a GET for `path`, waits `seconds`, and closes the connection
    /// without reading the answer: a client that hangs up mid-request.
    /// Blocking: call it off the cooperative pool.
    static func hangUp(_ path: String, port: Int, after seconds: Double) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "no socket") }
        defer { close(fd) }
        try connectToLoopback(fd, port: port)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.utf8CString.withUnsafeBytes { send(fd, $0.baseAddress, $0.count - 1, 0) }
        usleep(useconds_t(seconds * 1_000_000))
    }

    /// POSTs `body` as JSON to `path` from the loopback address `source`
    /// (127.0.0.2, 127.0.0.3...: Linux answers all of 127/8 on loopback),
    /// so that the server sees another client; returns the status and body.
    /// Blocking: call it off the cooperative pool.
    static func post(_ path: String, json body: String, port: Int, from source: String, timeoutSeconds: Int = 60) throws -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "no socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure(description: "cannot bind to \(source)") }
        try connectToLoopback(fd, port: port)
        let request = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let sent = request.utf8CString.withUnsafeBytes { send(fd, $0.baseAddress, $0.count - 1, 0) }
        guard sent == request.utf8.count else { throw Failure(description: "short send") }
        var bytes = [UInt8](), chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        guard let status = parts.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw Failure(description: "no answer: \(text.prefix(200))")
        }
        return (status, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// A connection held open by hand: bytes sent when the test says, and
    /// what the server sent back, read until it closes.
    final class Connection {
        let fd: Int32
        private(set) var received = [UInt8]()
        private(set) var closedByServer = false

        /// Connects from the loopback address `source` to `port`.
        init(port: Int, from source: String = "127.0.0.1") throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "no socket") }
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { close(fd); throw Failure(description: "cannot bind to \(source)") }
            do { try RawHTTP.connectToLoopback(fd, port: port) } catch { close(fd); throw error }
        }

        private var isOpen = true

        deinit { hangUp() }

        /// Closes the connection from this side (once).
        func hangUp() {
            guard isOpen else { return }
            isOpen = false
            close(fd)
        }

        /// Sends `text`; false when the server has closed the connection.
        @discardableResult
        func send(_ text: String) -> Bool {
            let sent = text.utf8CString.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            return sent == text.utf8.count
        }

        /// Reads what has come, waiting at most `seconds` for more; true
        /// once the server has closed the connection.
        @discardableResult
        func read(waiting seconds: Double) -> Bool {
            guard !closedByServer else { return true }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(seconds * 1000)) > 0 else { return false }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                closedByServer = true
            } else {
                received += chunk[..<count]
            }
            return closedByServer
        }

        /// Reads until `count` copies of `fragment` have come, the server
        /// closes, or `seconds` pass; whether they came.
        func waitFor(_ fragment: String, count: Int = 1, within seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while text.components(separatedBy: fragment).count - 1 < count {
                guard Date() < deadline, !read(waiting: 0.2) || text.components(separatedBy: fragment).count - 1 >= count else {
                    return text.components(separatedBy: fragment).count - 1 >= count
                }
            }
            return true
        }

        /// Reads until the server closes or `seconds` pass; whether it closed.
        func waitForClose(within seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline { if read(waiting: 0.2) { return true } }
            return closedByServer
        }

        var text: String { String(decoding: received, as: UTF8.self) }
    }

    /// Connects `fd` to `port` on 127.0.0.1.
    fileprivate static func connectToLoopback(_ fd: Int32, port: Int) throws {
        guard LoopbackPort.connect(fd, to: port) else { throw Failure(description: "cannot connect to port \(port)") }
    }

    /// One whole answer at the start of `bytes` (with a Content-Length), and
    /// how many bytes it took.
    private static func parse(_ bytes: [UInt8]) -> (Answer, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let status = head.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2 { fields[pair[0].lowercased()] = pair[1] }
        }
        let length = Int(fields["content-length"] ?? "0") ?? 0
        let total = end + 4 + length
        guard bytes.count >= total else { return nil }
        return (Answer(status: status, contentType: fields["content-type"], length: length), total)
    }
}
