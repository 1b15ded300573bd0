public import Foundation

/// What a JPEG's markers say about how it was encoded, and its size: read
/// from the header alone, without decoding a pixel.
public struct JPEGMarkers: Sendable {
    public var width: Int?
    public var height: Int?
    public var lumaSampling: String?
    public var lumaTableSum: Int?
    public var isBaseline = false

    public init(_ data: Data) {
        let bytes = [UInt8](data.prefix(256 * 1024))
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let body = Array(bytes[min(i + 4, bytes.count)..<min(i + 2 + length, bytes.count)])
            switch marker {
            case 0xC0, 0xC2:
                isBaseline = marker == 0xC0
                if body.count >= 8 {
                    height = Int(body[1]) << 8 | Int(body[2])
                    width = Int(body[3]) << 8 | Int(body[4])
                    lumaSampling = "\(body[7] >> 4)x\(body[7] & 0x0F)"
                }
            case 0xDB where body.first.map({ $0 & 0x0F == 0 }) == true && body.count >= 65:
                lumaTableSum = body[1..<65].reduce(0) { $0 + Int($1) }
            default:
                break
            }
            if marker == 0xDA { break }
            i += 2 + length
        }
    }
}
