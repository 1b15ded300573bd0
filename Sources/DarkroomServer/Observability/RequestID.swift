import HTTPTypes
import Hummingbird
import Synchronization

/// The id that names one request in the logs and in its answer's
/// `X-Request-ID`: the one the request carries (set by a proxy or a CDN in
/// front, so one id follows the request through every hop), else a new one.
enum RequestID {
    static let header = "X-Request-ID"
    static let field = HTTPField.Name(header)!

    /// The request's own id when it is one a log line can hold (1 to 128
    /// visible ASCII characters, no quotes or backslashes), else a new one.
    static func id(carried value: String?, new: () -> String = next) -> String {
        if let value, isUsable(value) { return value }
        return new()
    }

    static func isUsable(_ value: String) -> Bool {
        (1...128).contains(value.utf8.count) && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
    }

    /// A process prefix and a counter, 32 hex digits in all: unique without
    /// a random draw per request. (Memory-cache hits draw theirs from their
    /// event loop's own prefix and counter, ``MemoryHitTally``.)
    static func next() -> String {
        hexDigits(prefix, counter.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// `high` and `low` as 32 lower-case hex digits, written digit by
    /// digit: `String(_:radix:)` and padding showed in a hit's profile.
    static func hexDigits(_ high: UInt64, _ low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 32) { buffer in
            for index in 0..<16 {
                let shift = UInt64(60 - 4 * index)
                buffer[index] = digits[Int((high >> shift) & 0xF)]
                buffer[16 + index] = digits[Int((low >> shift) & 0xF)]
            }
            return 32
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(UInt64.random(in: .min ... .max))
}
