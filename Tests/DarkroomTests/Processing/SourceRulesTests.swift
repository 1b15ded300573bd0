@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// What both engines read of a source the same way (its EXIF orientation,
/// whether its colour profile is sRGB, the PNG chunks libpng reads), and
/// the thumbnail decoder's own limits, each shown stopping the decode by
/// what it did, not by how long it took.
@Suite(.offCooperativePool) struct SourceRulesTests {
    // MARK: - EXIF

    /// A JPEG with `segments` APP1s before the landscape fixture's bytes.
    static func jpeg(app1 segments: [[UInt8]]) throws -> Data {
        let photo = try Fixtures.data("landscape.jpg")
        var out = Data(photo.prefix(2))
        for payload in segments {
            out.append(contentsOf: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)])
            out.append(contentsOf: payload)
        }
        out.append(photo.dropFirst(2))
        return out
    }

    /// An EXIF payload ("Exif\0\0" + TIFF) with one orientation entry of
    /// TIFF type `type`, its value's four bytes as given.
    static func exif(bigEndian: Bool, type: UInt16, count: UInt32 = 1, value: [UInt8], extra: [UInt8] = []) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? (0..<4).map { UInt8(v >> (24 - 8 * $0) & 0xFF) } : (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        let header: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        return Array("Exif".utf8) + [0, 0] + header + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(type) + u32(count) + value + u32(0) + extra
    }

    /// Orientation 6 stored as every type a writer uses, the first Exif
    /// APP1 the one read, and nonsense read as 1: Darkroom's reader and
    /// libvips' agree on every one, so both engines turn a photo alike.
    @Test func theEXIFReaderReadsAsLibvipsDoes() throws {
        try VipsRuntime.start()
        let cases: [(String, [[UInt8]], Int)] = [
            ("SHORT, big-endian", [Self.exif(bigEndian: true, type: 3, value: [0, 6, 0, 0])], 6),
            ("SHORT, little-endian", [Self.exif(bigEndian: false, type: 3, value: [6, 0, 0, 0])], 6),
            ("LONG, big-endian", [Self.exif(bigEndian: true, type: 4, value: [0, 0, 0, 6])], 6),
            ("LONG, little-endian", [Self.exif(bigEndian: false, type: 4, value: [6, 0, 0, 0])], 6),
            ("BYTE", [Self.exif(bigEndian: false, type: 1, value: [6, 0, 0, 0])], 6),
            ("SLONG", [Self.exif(bigEndian: true, type: 9, value: [0, 0, 0, 6])], 6),
            ("ASCII", [Self.exif(bigEndian: true, type: 2, count: 2, value: [0x36, 0, 0, 0])], 6),
            ("RATIONAL", [Self.exif(bigEndian: true, type: 5, value: [0, 0, 0, 26], extra: [0, 0, 0, 6, 0, 0, 0, 1])], 6),
            ("UNDEFINED", [Self.exif(bigEndian: true, type: 7, value: [6, 0, 0, 0])], 1),
            ("out of range", [Self.exif(bigEndian: true, type: 3, value: [0, 9, 0, 0])], 1),
            ("the first Exif APP1 says 1", [Self.exif(bigEndian: true, type: 3, value: [0, 1, 0, 0]),
                                           Self.exif(bigEndian: true, type: 3, value: [0, 6, 0, 0])], 1),
            ("an XMP APP1 first", [Array("http://ns.adobe.com/xap/1.0/\0".utf8), Self.exif(bigEndian: true, type: 3, value: [0, 6, 0, 0])], 6),
        ]
        for (name, segments, expected) in cases {
            let data = try Self.jpeg(app1: segments)
            let (ours, header, libvips) = try data.withUnsafeBytes { raw in
                (SourceFacts.jpegStructure(raw)?.orientation, Thumbnail.header(raw, format: .jpeg)?.orientation,
                 try VImage.load(raw, loader: .jpeg).orientation)
            }
            #expect(ours == expected && header == expected, "\(name): \(ours ?? 0), \(header ?? 0)")
            #expect(libvips == expected, "\(name): libvips reads \(libvips)")
        }
    }

    /// A photo whose orientation is stored as a LONG comes out upright
    /// through either engine.
    @Test func aLongOrientationTurnsThePhotoInBothEngines() throws {
        let data = try Self.jpeg(app1: [Self.exif(bigEndian: true, type: 4, value: [0, 0, 0, 6])])
        for thumbnail in [true, false] {
            let result = try ProcessingRun(data: data, options: ProcessingOptions(operations: [.resize(Resize(width: 80, height: 80))],
                                                                                  output: OutputOptions(format: .jpeg)),
                                           killSwitch: KillSwitch(), usesThumbnail: thumbnail).run()
            #expect(result.width == 53 && result.height == 80, "turned a quarter: \(result.width) x \(result.height), thumbnail path \(thumbnail)")
        }
    }

    // MARK: - Colour profiles

    static func profile(of fixture: String) throws -> [UInt8] {
        try VipsRuntime.start()
        let data = try Fixtures.data(fixture)
        return try data.withUnsafeBytes { raw in try #require(try VImage.load(raw, loader: .jpeg).iccProfile) }
    }

    /// libvips' own sRGB profile is sRGB; Display P3's is not, and neither
    /// is the sRGB profile with its tone curves made a plain gamma of 2.2,
    /// though its description still says sRGB.
    @Test func theColourProfileRuleLooksAtColorantsAndCurves() throws {
        let srgb = try Self.profile(of: "srgb-profile.jpg")
        let p3 = try Self.profile(of: "display-p3.jpg")
        #expect(srgb.withUnsafeBytes { SourceFacts.isSRGB(profile: $0) })
        #expect(!p3.withUnsafeBytes { SourceFacts.isSRGB(profile: $0) })
        let gamma = Self.replacingCurves(of: srgb, gamma: 2.2)
        #expect(gamma != srgb)
        #expect(!gamma.withUnsafeBytes { SourceFacts.isSRGB(profile: $0) })
        #expect(!Array(srgb.prefix(100)).withUnsafeBytes { SourceFacts.isSRGB(profile: $0) }, "a cut-short profile is not sRGB")
    }

    /// Both engines take the sRGB-profiled photo as it is (the thumbnail
    /// path takes it at all), and transform the P3 one (the thumbnail path
    /// leaves it to libvips).
    @Test func bothEnginesFollowTheOneRule() throws {
        let resize: [ImageOperation] = [.resize(Resize(width: 100, height: 100))]
        for (fixture, taken) in [("srgb-profile.jpg", true), ("display-p3.jpg", false)] {
            let data = try Fixtures.data(fixture)
            let run = ProcessingRun(data: data, options: ProcessingOptions(operations: resize, output: OutputOptions(format: .jpeg)),
                                    killSwitch: KillSwitch())
            let took = try data.withUnsafeBytes { try run.thumbnailPixels($0, format: .jpeg) } != nil
            #expect(took == taken, "\(fixture)")
            try VipsRuntime.start()
            let transforms = try data.withUnsafeBytes { try VImage.load($0, loader: .jpeg).hasForeignProfile }
            #expect(transforms == !taken, "\(fixture)")
        }
    }

    /// The profile with each tone curve tag's data made `para` type 0 (a
    /// plain gamma), in place.
    static func replacingCurves(of profile: [UInt8], gamma: Double) -> [UInt8] {
        var bytes = profile
        func be32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        let count = be32(128)
        for i in 0..<count {
            let entry = 132 + i * 12
            let signature = String(decoding: bytes[entry..<entry + 4], as: UTF8.self)
            guard ["rTRC", "gTRC", "bTRC"].contains(signature) else { continue }
            let offset = be32(entry + 4)
            let fixed = UInt32(gamma * 65536)
            let data: [UInt8] = Array("para".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0] + (0..<4).map { UInt8(fixed >> (24 - 8 * UInt32($0)) & 0xFF) }
            for (j, byte) in data.enumerated() where offset + j < bytes.count { bytes[offset + j] = byte }
        }
        return bytes
    }

    // MARK: - PNG chunks, as libpng reads them

    /// IDAT chunks split by another chunk (libpng reads the first run only)
    /// and an eXIf after the pixels (which libvips never sees) are left to
    /// libvips; a PNG in the common order takes the path.
    @Test func pngChunksOutOfLibpngsOrderGoToLibvips() throws {
        let png = try ThumbnailContractTests.reencoded(try Fixtures.data("landscape.jpg"), as: .png)
        let chunks = PNGChunks(png)
        let resize: [ImageOperation] = [.resize(Resize(width: 100, height: 100))]
        func takes(_ data: Data) throws -> Bool {
            let run = ProcessingRun(data: data, options: ProcessingOptions(operations: resize, output: OutputOptions(format: .jpeg)),
                                    killSwitch: KillSwitch())
            return try data.withUnsafeBytes { try run.thumbnailPixels($0, format: .png) } != nil
        }
        #expect(try takes(chunks.data))
        #expect(try takes(chunks.splittingIDAT(with: nil).data), "IDAT in two chunks, one after the other")
        #expect(try !takes(chunks.splittingIDAT(with: ("tEXt", Array("Comment\0split".utf8))).data), "a chunk between IDATs")
        let exif = Array(Self.exif(bigEndian: true, type: 3, value: [0, 6, 0, 0]).dropFirst(6))
        #expect(try !takes(chunks.inserting(("eXIf", exif), beforeIDAT: true).data), "an eXIf before the pixels: orientation 6")
        let after = chunks.inserting(("eXIf", exif), beforeIDAT: false).data
        #expect(try takes(after), "an eXIf after the pixels is not read, by libpng or here")
        let header = after.withUnsafeBytes { Thumbnail.header($0, format: .png) }
        #expect(header?.orientation == 1)
    }

    // MARK: - The decoder's own limits

    static func plan(_ width: Int, _ height: Int, shrink: Int, to side: Int) -> Thumbnail.Plan {
        let decoded = Thumbnail.decodedSize(format: .jpeg, width: width, height: height, shrink: shrink)
        let scaled = (side, side * height / width)
        return Thumbnail.Plan(shrink: shrink, decodedWidth: decoded.width, decodedHeight: decoded.height,
                              horizontalScale: Double(scaled.0) / Double(decoded.width), verticalScale: Double(scaled.1) / Double(decoded.height),
                              cropLeft: 0, cropTop: 0, cropWidth: scaled.0, cropHeight: scaled.1)
    }

    /// The 100-scan file, 7000 x 7000: with a limit of 50 the monitor stops
    /// it at the 51st scan; libjpeg's memory limit stops the 4:4:4 one
    /// before it allocates its coefficients; and a stop asked for at the
    /// 50th look ends it there, where a whole decode looks thousands of
    /// times: stopped midway, shown by what it did.
    @Test func theMonitorStopsScansMemoryAndAPulledSwitch() async throws {
        let scans = try Data(contentsOf: try await HostileShapes.url("scans-at-limit.jpg"))
        let hog = try Data(contentsOf: try await HostileShapes.url("coefficient-hog.jpg"))
        let plan = Self.plan(7000, 7000, shrink: 8, to: 100)
        let outcome = try await onOwnThread {
            let limited = scans.withUnsafeBytes { raw in
                Result { () throws(Thumbnail.Failure) in try Thumbnail.decode(raw, format: .jpeg, plan: plan, maxScans: 50, killSwitch: VipsKillSwitch()) }
            }
            let overBudget = hog.withUnsafeBytes { raw in
                Result { () throws(Thumbnail.Failure) in try Thumbnail.decode(raw, format: .jpeg, plan: plan, maxMemory: 64 << 20, killSwitch: VipsKillSwitch()) }
            }
            let whole = Thumbnail.Watch(killSwitch: VipsKillSwitch())
            let full = scans.withUnsafeBytes { raw in
                Result { () throws(Thumbnail.Failure) in try Thumbnail.decode(raw, format: .jpeg, plan: plan, watch: whole) }
            }
            let stopped = Thumbnail.Watch(killSwitch: VipsKillSwitch(), stopAfter: 50)
            let cancelled = scans.withUnsafeBytes { raw in
                Result { () throws(Thumbnail.Failure) in try Thumbnail.decode(raw, format: .jpeg, plan: plan, watch: stopped) }
            }
            return (limited.failure, overBudget.failure, full.failure == nil, whole.looks, cancelled.failure, stopped.looks)
        }
        #expect(outcome.0 == .tooManyScans)
        #expect(outcome.1 == .overBudget)
        #expect(outcome.2, "the whole file decodes within its limits")
        #expect(outcome.3 > 5_000, "a whole decode looked \(outcome.3) times")
        #expect(outcome.4 == .cancelled && outcome.5 == 50, "stopped at look \(outcome.5)")
    }

    /// A library caller's numbers that would trap in arithmetic are refused
    /// by the thumbnail path as by libvips'.
    @Test func outlandishResizeNumbersAreRefusedNotTrapped() throws {
        let data = try Fixtures.data("landscape.jpg")
        for resize in [Resize(width: 100, height: 100, zoomX: .nan), Resize(width: 100, height: 100, zoomX: 1e300),
                       Resize(width: 100, height: 100, minWidth: Int.max), Resize(width: Int.max, height: 10)] {
            let run = ProcessingRun(data: data, options: ProcessingOptions(operations: [.resize(resize)], output: OutputOptions(format: .jpeg)),
                                    killSwitch: KillSwitch())
            let error = #expect(throws: DarkroomError.self) { _ = try data.withUnsafeBytes { try run.thumbnailPixels($0, format: .jpeg) } }
            #expect(error?.kind == .invalidOption, "\(resize)")
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
