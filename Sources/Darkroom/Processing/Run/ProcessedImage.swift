public import Foundation
public import NIOCore
import NIOFoundationCompat

/// The encoded result of processing, with what it is.
public struct ProcessedImage: Sendable, Hashable {
    /// The encoded bytes. A server answers with this buffer as it is: it is
    /// shared, never copied, by every answer made from it.
    public var bytes: ByteBuffer
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// The source's format and size, as its header gave them.
    public var source: SourceInfo

    public struct SourceInfo: Sendable, Hashable {
        public var format: ImageFormat
        public var width: Int
        public var height: Int
        /// The source's length in bytes as it came; nil where a cache
        /// entry written before it was kept does not say.
        public var bytes: Int?

        public init(format: ImageFormat, width: Int, height: Int, bytes: Int? = nil) {
            (self.format, self.width, self.height, self.bytes) = (format, width, height, bytes)
        }
    }

    public init(bytes: ByteBuffer, format: ImageFormat, width: Int, height: Int, source: SourceInfo) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
        self.source = source
    }

    public init(data: Data, format: ImageFormat, width: Int, height: Int, source: SourceInfo) {
        self.init(bytes: ByteBuffer(data: data), format: format, width: width, height: height, source: source)
    }

    /// The encoded bytes as `Data`, a view of ``bytes`` (no copy).
    public var data: Data {
        bytes.getData(at: bytes.readerIndex, length: bytes.readableBytes, byteTransferStrategy: .noCopy) ?? Data()
    }

    /// The size of the encoded bytes.
    public var byteCount: Int { bytes.readableBytes }

    /// The memory the bytes hold, which a memory cache counts: a
    /// ByteBuffer's storage is rounded up to a power of two.
    var memoryCost: Int { max(bytes.capacity, byteCount) }
}
