@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// The expected hashes come from the reference encoders (PyPI's
/// blurhash-python, a binding of the reference C code, and thumbhash's
/// port of the reference JavaScript) for the same synthetic pixels.
@Suite(.offCooperativePool) struct PlaceholderHashTests {
    static func pattern(width: Int, height: Int, bands: Int, _ pixel: (Int, Int) -> [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { bytes += pixel(x, y).prefix(bands).map { UInt8($0 & 255) } }
        }
        return bytes
    }

    static func gradient(_ x: Int, _ y: Int) -> [Int] { [x * 8, y * 10, x * y, 255] }

    @Test func blurHashMatchesTheReference() {
        let rgb = Self.pattern(width: 32, height: 24, bands: 3, Self.gradient)
        #expect(BlurHash.encode(width: 32, height: 24, bands: 3, pixels: rgb) == "LxH27h2lwtX3mAWUjwfAgFfmfTfi")
        #expect(BlurHash.encode(width: 32, height: 24, bands: 3, pixels: rgb, componentsX: 1, componentsY: 1) == "00H27h")
        #expect(BlurHash.encode(width: 32, height: 24, bands: 3, pixels: rgb, componentsX: 9, componentsY: 9)
                == "|xH27h2lwtX3a^ofWroeWnmAWUjwfAfTf6fNf8fRgFfmfTfifNfifTfjfPn$WsjsfNfTfTfOfPfQe-fTfNfTfSfNfSfRfRofWojrfTfNfSfSfOfPe?fNfTfOfSfSfOfRfPoeWpjufPfRfOfQfRfSeofRfPfQfRfPfPfRfO")
        // Alpha is ignored.
        let rgba = Self.pattern(width: 32, height: 24, bands: 4, Self.gradient)
        #expect(BlurHash.encode(width: 32, height: 24, bands: 4, pixels: rgba) == "LxH27h2lwtX3mAWUjwfAgFfmfTfi")
    }

    @Test func thumbHashMatchesTheReference() {
        let tall = Self.pattern(width: 32, height: 24, bands: 4, Self.gradient)
        #expect(Data(ThumbHash.encode(width: 32, height: 24, rgba: tall)).base64EncodedString() == "2xgOHZpgdodwiIiGiGeIh/OkD/eI")
        let wide = Self.pattern(width: 50, height: 20, bands: 4) { x, y in [x * 5, 255 - (y * 12) % 256, 128, 255] }
        #expect(Data(ThumbHash.encode(width: 50, height: 20, rgba: wide)).base64EncodedString() == "INgJM5qAh4d/eIiHgH8ICHc=")
    }

    @Test func thumbHashKeepsTransparency() {
        // Half transparent: the header's alpha bit is set and an alpha byte follows.
        let pixels = Self.pattern(width: 20, height: 20, bands: 4) { x, _ in [200, 50, 50, x < 10 ? 0 : 255] }
        let hash = ThumbHash.encode(width: 20, height: 20, rgba: pixels)
        #expect(hash[2] & 0x80 != 0)
        #expect(hash.count > 6)
    }
}
