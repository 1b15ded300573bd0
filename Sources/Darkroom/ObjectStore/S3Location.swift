import Foundation

/// `s3://BUCKET/PREFIX`: a bucket, and a folder-like prefix in it.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public var bucket: String
    /// Empty, or ends with `/`.
    public var prefix: String

    public init(bucket: String, prefix: String = "") {
        self.bucket = bucket
        self.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    /// Parses `s3://bucket` or `s3://bucket/some/prefix/`.
    public init(parsing text: String) throws(DarkroomError) {
        guard text.hasPrefix("s3://") else {
            throw DarkroomError(.invalidOption, "\(text) is not an S3 location: expected s3://BUCKET/PREFIX")
        }
        let rest = text.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        guard Self.isBucketName(bucket) else {
            throw DarkroomError(.invalidOption, "\(text): \"\(bucket)\" is not a bucket name (3 to 63 of a-z, 0-9, '.', '-')")
        }
        let prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        guard !prefix.contains("//"), !prefix.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
            throw DarkroomError(.invalidOption, "\(text): the prefix has an empty, '.' or '..' segment")
        }
        self.init(bucket: bucket, prefix: prefix)
    }

    /// S3's rules for bucket names (the DNS-safe ones).
    public static func isBucketName(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count)
            && name.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
            && name.first != "-" && name.first != "." && name.last != "-" && name.last != "."
    }

    public var description: String { "s3://\(bucket)/\(prefix)" }
}
