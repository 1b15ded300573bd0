internal import CVips

/// BMP and ICO, written from the pixels as imgproxy writes them: libvips
/// has no saver for either but ImageMagick's, which is untrusted.
extension VImage {
    /// The largest side an icon may have.
    package static let maxIconSide = 256

    /// Uncompressed BMP, rows top-down, each padded to 4 bytes: 8-bit grey
    /// with a grey palette (BITMAPINFOHEADER), or BGR / BGRA with a
    /// BITMAPV5HEADER that names its masks and sRGB.
    func bmpData() throws(VipsError) -> [UInt8] {
        let image = try VImage.make("bitmap bands") { darkroom_vips_bitmap_bands(pointer, $0) }
        let pixels = try image.pixelBytes(PixelPass())
        let (width, height, bands) = (image.width, image.height, image.bands)
        let bitsPerPixel = bands * 8
        let rowBytes = (width * bands + 3) & ~3
        let grey = bands == 1
        let infoSize = grey ? 40 : 124
        let paletteSize = grey ? 256 * 4 : 0
        let dataOffset = 14 + infoSize + paletteSize
        let pixelBytes = rowBytes.multipliedReportingOverflow(by: height)
        let (size, overflow) = dataOffset.addingReportingOverflow(pixelBytes.partialValue)
        guard !pixelBytes.overflow, !overflow, size <= Int(UInt32.max) else {
            throw VipsError(operation: "bmpsave", message: "a \(width) x \(height) BMP is over 4 GB")
        }
        var out = [UInt8]()
        out.reserveCapacity(size)
        // BITMAPFILEHEADER
        out += [0x42, 0x4D]
        out.appendLittleEndian(UInt32(size))
        out.appendLittleEndian(UInt32(0))
        out.appendLittleEndian(UInt32(dataOffset))
        // BITMAPINFOHEADER, and for colour its V5 extension.
        out.appendLittleEndian(UInt32(infoSize))
        out.appendLittleEndian(Int32(width))
        out.appendLittleEndian(Int32(-height))  // negative: top-down
        out.appendLittleEndian(UInt16(1))  // planes
        out.appendLittleEndian(UInt16(bitsPerPixel))
        out.appendLittleEndian(UInt32(bands == 4 ? 3 : 0))  // BI_BITFIELDS for alpha, else BI_RGB
        out.appendLittleEndian(UInt32(rowBytes * height))
        out.appendLittleEndian(Int32(2835))  // 72 dpi, in pixels a metre
        out.appendLittleEndian(Int32(2835))
        out.appendLittleEndian(UInt32(grey ? 256 : 0))  // colours used
        out.appendLittleEndian(UInt32(0))  // all important
        if grey {
            for value in 0...255 { out += [UInt8(value), UInt8(value), UInt8(value), 0] }
        } else {
            out.appendLittleEndian(UInt32(0x00FF_0000))  // red
            out.appendLittleEndian(UInt32(0x0000_FF00))  // green
            out.appendLittleEndian(UInt32(0x0000_00FF))  // blue
            out.appendLittleEndian(UInt32(bands == 4 ? 0xFF00_0000 : 0))  // alpha
            out += Array("BGRs".utf8)  // LCS_sRGB, stored little-endian
            out += [UInt8](repeating: 0, count: 36 + 12 + 16)  // endpoints, gamma, intent, profile, reserved
        }
        // Pixels: RGB(A) to BGR(A), each row padded with zeros.
        let headerCount = out.count
        out += [UInt8](repeating: 0, count: rowBytes * height)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for row in 0..<height {
                    let from = row * width * bands
                    let to = headerCount + row * rowBytes
                    if grey {
                        for x in 0..<width { target[to + x] = source[from + x] }
                        continue
                    }
                    for x in 0..<width {
                        let p = from + x * bands
                        let q = to + x * bands
                        target[q] = source[p + 2]
                        target[q + 1] = source[p + 1]
                        target[q + 2] = source[p]
                        if bands == 4 { target[q + 3] = source[p + 3] }
                    }
                }
            }
        }
        return out
    }

    /// An icon of one image, stored as PNG (as every icon reader since
    /// Windows Vista takes it); the image is at most ``maxIconSide`` a side.
    func icoData(strip: Bool) throws(VipsError) -> [UInt8] {
        guard width <= Self.maxIconSide, height <= Self.maxIconSide else {
            throw VipsError(operation: "icosave", message: "an icon is at most \(Self.maxIconSide) pixels a side, not \(width) x \(height)")
        }
        let image = try VImage.make("bitmap bands") { darkroom_vips_bitmap_bands(pointer, $0) }
        let png = try image.encoded(.png, strip: strip, through: PixelPass()) { [UInt8]($0) }
        var out = [UInt8]()
        out.reserveCapacity(22 + png.count)
        // ICONDIR: reserved, type 1 (icon), one image.
        out.appendLittleEndian(UInt16(0))
        out.appendLittleEndian(UInt16(1))
        out.appendLittleEndian(UInt16(1))
        // ICONDIRENTRY: 0 stands for 256.
        out.append(UInt8(width % 256))
        out.append(UInt8(height % 256))
        out += [0, 0]  // no palette, reserved
        out.appendLittleEndian(UInt16(1))  // planes
        out.appendLittleEndian(UInt16(image.bands == 4 ? 32 : 24))
        out.appendLittleEndian(UInt32(png.count))
        out.appendLittleEndian(UInt32(22))
        out += png
        return out
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
