#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Loopback ports for test servers and tools.
public enum LoopbackPort {
    /// A port nobody listens on now (the kernel's choice for port 0).
    public static func free() throws -> Int {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, length) } }
        guard bound == 0 else { throw CocoaError(.fileWriteUnknown) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on the port.
    public static func isListening(_ port: Int) -> Bool {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(s) }
        return connect(s, to: port)
    }

    /// Connects the socket `fd` to `port` on 127.0.0.1; whether it did.
    public static func connect(_ fd: Int32, to port: Int) -> Bool {
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}
