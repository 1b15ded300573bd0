import HTTPTypes

/// imgproxy's `IMGPROXY_SECRET`: when set, image and info requests must
/// carry `Authorization: Bearer SECRET`, or are refused with 403 before
/// anything else is read. The comparison takes the same time whatever the
/// header holds, so the answers' timing tells nothing of the secret.
public struct ServerSecret: Sendable, Hashable {
    /// The secret; nil: no header is asked for.
    public var value: String?

    public init(_ value: String? = nil) {
        self.value = value
    }

    /// The one answer to a request without the secret.
    static let refusal = RouteError(.forbidden, "the request's Authorization is missing or wrong")

    /// Whether a request whose `Authorization` field is `header` may be answered.
    public func admits(_ header: String?) -> Bool {
        guard let value else { return true }
        let expected = Array("Bearer \(value)".utf8)
        let given = Array((header ?? "").utf8)
        // Every byte of the expected value is compared, whatever the length given.
        var difference = UInt8(truncatingIfNeeded: expected.count ^ given.count)
        for (index, byte) in expected.enumerated() {
            difference |= byte ^ (index < given.count ? given[index] : ~byte)
        }
        return difference == 0
    }

    func check(_ header: String?) throws(RouteError) {
        guard admits(header) else { throw Self.refusal }
    }
}
