import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port where a TCP connect never completes: a socket that
/// listens with no room in its queue and never accepts, its queue already
/// filled by connections of its own, so the kernel drops every new SYN and
/// a client's connect waits until its own timeout.
public final class StalledListener: @unchecked Sendable {
    // Touched only in init and deinit.
    private let listener: Int32
    private var fillers: [Int32] = []
    public let port: Int

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 0) == 0 else { close(listener); throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue: with a backlog of 0 it holds one
        // connection, and the kernel then drops further SYNs.
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) } }
            fillers.append(filler)
        }
        usleep(100_000)
    }

    deinit {
        for filler in fillers { close(filler) }
        close(listener)
    }
}
