import Foundation

/// The encoded result of processing, with what it is.
public struct ProcessedImage: Sendable, Hashable {
    public var data: Data
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// The source's format and size, as its header gave them.
    public var source: SourceInfo

    public struct SourceInfo: Sendable, Hashable {
        public var format: ImageFormat
        public var width: Int
        public var height: Int
    }
}
