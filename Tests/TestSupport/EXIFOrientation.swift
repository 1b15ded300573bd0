public import Foundation

/// Writes an EXIF orientation into a JPEG: a minimal APP1 segment (a TIFF
/// header and one IFD entry, tag 0x0112) right after the start-of-image
/// marker, as a phone camera would store it.
public enum EXIFOrientation {
    public static func jpeg(_ jpeg: Data, orientation: Int) -> Data {
        precondition((1...8).contains(orientation) && jpeg.starts(with: [0xFF, 0xD8]), "a JPEG and an orientation 1...8")
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]   // little-endian, IFD at 8
        tiff += [0x01, 0x00]                                                    // one entry
        tiff += [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00]                // Orientation, SHORT, count 1
        tiff += [UInt8(orientation), 0x00, 0x00, 0x00]                          // the value, padded
        tiff += [0x00, 0x00, 0x00, 0x00]                                        // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        var out = Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)])
        out.append(contentsOf: payload)
        out.append(jpeg.dropFirst(2))
        return out
    }
}
