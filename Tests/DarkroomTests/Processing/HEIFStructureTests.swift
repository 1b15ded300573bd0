@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// HEIF and AVIF files whose structure would have libheif recurse without
/// end (a grid that lists itself aborts the process), or decode one tile
/// tens of thousands of times, are refused from their boxes alone: these
/// tests call only HEIFStructure, never libvips, for the hostile shapes.
@Suite(.offCooperativePool) struct HEIFStructureTests {
    enum Outcome {
        case notHEIF, passed
        case refused(DarkroomError)
    }

    static func outcome(_ data: Data, maxTiles: Int = 1000) -> Outcome {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Outcome in
            do throws(DarkroomError) {
                guard let structure = try HEIFStructure.read(raw) else { return .notHEIF }
                try structure.check(maxTiles: maxTiles)
                return .passed
            } catch {
                return .refused(error)
            }
        }
    }

    static func refusal(_ data: Data, maxTiles: Int = 1000) -> DarkroomError? {
        guard case .refused(let error) = outcome(data, maxTiles: maxTiles) else { return nil }
        return error
    }

    static func structure(_ data: Data) throws -> HEIFStructure? {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> HEIFStructure? in
            try HEIFStructure.read(raw)
        }
    }

    /// A top-level box of `data` by its type, whole.
    static func topLevelBox(_ type: String, in data: Data) -> Data? {
        let bytes = [UInt8](data)
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= bytes.count else { return nil }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type { return Data(bytes[offset..<offset + size]) }
            offset += size
        }
        return nil
    }

    /// libheif keeps the last top-level meta box it reads: a harmless one
    /// first must not hide a grid that lists itself after it.
    @Test func aSecondMetaBoxIsRefused() throws {
        let hostileMeta = try #require(Self.topLevelBox("meta", in: try HostileHEIF.selfListing()))
        let error = Self.refusal(try HostileHEIF.validGrid() + hostileMeta)
        #expect(error?.kind == .corruptImage && error?.reason.contains("more than one meta box") == true, "\(String(describing: error))")
    }

    @Test func theFixturesReadAndPass() throws {
        for name in ["thumbnail.avif", "landscape.avif"] {
            let structure = try #require(try Self.structure(try Fixtures.data(name)), "\(name)")
            #expect(structure.primaryItem == 1, "\(name)")
            #expect(structure.items[1]?.type == "av01", "\(name)")
            #expect(structure.items[1]?.size == HEIFStructure.Size(width: 240, height: 160), "\(name)")
            try structure.check(maxTiles: 4)
        }
        // thumbnail.avif's 64 x 42 thumbnail is checked with the image.
        let thumbnail = try #require(try Self.structure(try Fixtures.data("thumbnail.avif")))
        #expect(thumbnail.items[3]?.thumbnailOf == [1])
        #expect(thumbnail.items[3]?.size == HEIFStructure.Size(width: 64, height: 42))
    }

    @Test func otherFormatsAreNotHEIF() throws {
        for name in ["landscape.jpg", "alpha.png", "landscape.webp", "random.bin"] {
            #expect(try Self.structure(try Fixtures.data(name)) == nil, "\(name)")
        }
        #expect(try Self.structure(Data()) == nil)
    }

    /// The 401-byte AVIF that aborted the process, in this shape.
    @Test func aGridThatListsItselfIsRefused() throws {
        let data = try HostileHEIF.selfListing()
        let structure = try #require(try Self.structure(data))
        #expect(structure.items[2]?.references == [1, 2])
        let error = try #require(Self.refusal(data))
        #expect(error.kind == .corruptImage, "\(error)")
        #expect(error.reason.contains("grid (item 2) refers to itself") && error.reason.contains("never end"), "\(error)")
    }

    @Test func aGridOfGridsIsRefused() throws {
        let error = try #require(Self.refusal(try HostileHEIF.gridOfGrids()))
        #expect(error.kind == .corruptImage, "\(error)")
        #expect(error.reason.contains("a grid inside a grid") && error.reason.contains("item 2"), "\(error)")
    }

    @Test func tensOfThousandsOfReferencesToOneTileAreRefused() throws {
        let data = try HostileHEIF.manyReferences()
        let structure = try #require(try Self.structure(data))
        #expect(structure.items[2]?.references.count == 65_280)
        #expect(structure.items[2]?.grid == HEIFStructure.Grid(rows: 255, columns: 256, outputWidth: 61_440, outputHeight: 40_800))
        let error = try #require(Self.refusal(data, maxTiles: 1000))
        #expect(error.kind == .tooComplex, "\(error)")
        #expect(error.reason.contains("65280") && error.reason.contains("1000"), "\(error)")
        // Otherwise a well-formed grid: its count alone is refused.
        try structure.check(maxTiles: 65_280)
    }

    @Test func tilesDeclaredZeroByZeroAreRefused() throws {
        let error = try #require(Self.refusal(try HostileHEIF.zeroTiles()))
        #expect(error.kind == .corruptImage, "\(error)")
        #expect(error.reason.contains("0 x 0") && error.reason.contains("tile item 1"), "\(error)")
    }

    @Test func aGridThatCoversItsCanvasPassesUpToTheTileLimit() throws {
        let data = try HostileHEIF.validGrid()
        let structure = try #require(try Self.structure(data))
        #expect(structure.primaryItem == 2)
        #expect(structure.items[2]?.type == "grid")
        #expect(structure.items[2]?.references == [1, 1, 1, 1])
        #expect(structure.items[2]?.grid == HEIFStructure.Grid(rows: 2, columns: 2, outputWidth: 480, outputHeight: 320))
        try structure.check(maxTiles: 4)
        let error = try #require(Self.refusal(data, maxTiles: 3))
        #expect(error.kind == .tooComplex && error.reason.contains("4") && error.reason.contains("limit of 3"), "\(error)")
    }

    /// libheif must be able to place every tile: as many as the grid says,
    /// each there, covering the canvas with no column or row wholly outside.
    @Test func gridsWhoseTilesDoNotTileTheirCanvasAreRefused() throws {
        let tile = try HostileHEIF.tile()
        let shapes: [(Data, String)] = [
            (HEIFWriter.grid(tile: tile, rows: 2, columns: 2, outputWidth: 1000, outputHeight: 320), "which do not tile its 1000 x 320 canvas"),
            (HEIFWriter.grid(tile: tile, rows: 2, columns: 2, outputWidth: 240, outputHeight: 320), "which do not tile its 240 x 320 canvas"),
            (HEIFWriter.grid(tile: tile, rows: 2, columns: 2, outputWidth: 480, outputHeight: 0), "which do not tile its 480 x 0 canvas"),
            (HEIFWriter.grid(tile: tile, rows: 2, columns: 2, references: [0, 0, 0]), "but lists 3"),
            (HEIFWriter.grid(tile: tile, rows: 1, columns: 2, references: [0, 5]), "item 6, which the file does not have"),
            (HEIFWriter.file([.coded(tile), .coded(tile.declared(width: 120, height: 160)),
                              .grid(rows: 1, columns: 2, outputWidth: 360, outputHeight: 160, references: [0, 1])], primary: 2),
             "tiles of different sizes"),
        ]
        for (data, words) in shapes {
            let error = try #require(Self.refusal(data), "\(words)")
            #expect(error.kind == .corruptImage && error.reason.contains(words), "\(error)")
        }
    }

    /// The valid grid is one libheif decodes: the tile four times over,
    /// its red corner in each quarter.
    @Test func theValidGridDecodes() throws {
        let result = try process(try HostileHEIF.validGrid(), ProcessingOptions(output: OutputOptions(format: .png)))
        #expect((result.width, result.height) == (480, 320))
        let decoded = try pixels(of: result)
        for (x, y) in [(10, 10), (250, 10), (10, 170), (250, 170)] {
            #expect(isRed(decoded.pixel(x: x, y: y)), "(\(x), \(y))")
        }
    }

    /// Every prefix of every file (a sample of prefixes of the large one)
    /// reads without trapping, as nothing, passed or refused; a hostile
    /// file cut short is never let through.
    @Test func truncatedFilesNeverTrap() throws {
        let files: [(name: String, data: Data, hostile: Bool)] = [
            ("thumbnail.avif", try Fixtures.data("thumbnail.avif"), false),
            ("landscape.avif", try Fixtures.data("landscape.avif"), false),
            ("self-listing grid", try HostileHEIF.selfListing(), true),
            ("grid of grids", try HostileHEIF.gridOfGrids(), true),
            ("65,280 references", try HostileHEIF.manyReferences(), true),
            ("0 x 0 tiles", try HostileHEIF.zeroTiles(), true),
            ("valid grid", try HostileHEIF.validGrid(), false),
        ]
        for file in files {
            let step = file.data.count <= 20_000 ? 1 : file.data.count / 2000
            var passed = 0
            for length in stride(from: 0, through: file.data.count, by: step) {
                if case .passed = Self.outcome(file.data.prefix(length)) { passed += 1 }
            }
            if file.hostile {
                #expect(passed == 0, "\(file.name): \(passed) prefixes passed")
            }
            let whole = Self.outcome(file.data)
            switch whole {
            case .passed: #expect(!file.hostile, "\(file.name)")
            case .refused: #expect(file.hostile, "\(file.name): \(whole)")
            case .notHEIF: Issue.record("\(file.name) did not read as HEIF")
            }
        }
    }

    /// Any byte of the boxes before the coded data, set to a few values
    /// that matter to sizes and counts, never traps or hangs.
    @Test func damagedBoxesNeverTrap() throws {
        for data in [try Fixtures.data("thumbnail.avif"), try HostileHEIF.selfListing(), try HostileHEIF.validGrid()] {
            var copy = data
            for index in 0..<min(data.count, 1024) {
                for value: UInt8 in [0x00, 0x01, 0x80, 0xFF] {
                    copy[copy.startIndex + index] = value
                    _ = Self.outcome(copy)
                }
                copy[copy.startIndex + index] = data[data.startIndex + index]
            }
        }
    }
}
