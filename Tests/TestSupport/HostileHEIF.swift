public import Foundation

/// HEIF and AVIF files made to cost libheif far more than their size, or to
/// take the process down, from the landscape fixture's one coded image:
/// each refused from its boxes before any decoder runs, but the last, a
/// grid that decodes.
public enum HostileHEIF {
    /// The landscape fixture's coded image, 240 x 160 with a red block in
    /// its top-left corner.
    public static func tile() throws -> HEIFWriter.Tile {
        try HEIFWriter.primaryTile(of: try Fixtures.data("landscape.avif")).orThrow("landscape.avif has no coded image")
    }

    /// (a) A 2 x 1 grid whose second tile is the grid itself.
    public static func selfListing() throws -> Data {
        HEIFWriter.grid(tile: try tile(), rows: 1, columns: 2, outputWidth: 480, outputHeight: 160, references: [0, 1])
    }

    /// (b) A 2 x 2 grid of a 2 x 2 grid of the tile.
    public static func gridOfGrids() throws -> Data {
        HEIFWriter.file([.coded(try tile()),
                         .grid(rows: 2, columns: 2, outputWidth: 480, outputHeight: 320, references: [0, 0, 0, 0]),
                         .grid(rows: 2, columns: 2, outputWidth: 960, outputHeight: 640, references: [1, 1, 1, 1])],
                        primary: 2)
    }

    /// (c) 255 x 256 references to one tile, on a canvas they exactly cover.
    public static func manyReferences() throws -> Data {
        HEIFWriter.grid(tile: try tile(), rows: 255, columns: 256)
    }

    /// (d) A 2 x 2 grid of a tile declared 0 x 0.
    public static func zeroTiles() throws -> Data {
        HEIFWriter.grid(tile: try tile().declared(width: 0, height: 0), rows: 2, columns: 2, outputWidth: 480, outputHeight: 320)
    }

    /// (e) A valid 2 x 2 grid of the tile, 480 x 320.
    public static func validGrid() throws -> Data {
        HEIFWriter.grid(tile: try tile(), rows: 2, columns: 2)
    }

    /// (f) A 13 x 13 grid of one 512 x 512 tile with full chroma (4:4:4):
    /// 6656 x 6656, under the pixel and tile limits, 14 KB whose decode
    /// raised the server's resident size by 262 MiB (its RGB and libvips'
    /// copy, a tile's planes at a time) where counting 3 bytes a pixel
    /// (127 MiB) let it through a 256 MiB budget.
    public static func fullChromaGrid() throws -> Data {
        let tile = try HEIFWriter.primaryTile(of: try Fixtures.data("full-chroma.avif")).orThrow("full-chroma.avif has no coded image")
        return HEIFWriter.grid(tile: tile, rows: 13, columns: 13)
    }

    /// The shapes refused from their boxes alone, and the valid grid, by
    /// the file name each is served under.
    public static func all() throws -> [(name: String, data: Data)] {
        [("self-listing.avif", try selfListing()), ("grid-of-grids.avif", try gridOfGrids()),
         ("many-references.avif", try manyReferences()), ("zero-tiles.avif", try zeroTiles()),
         ("valid-grid.avif", try validGrid())]
    }

    /// Writes every shape into `folder`, and the full-chroma grid, which
    /// only its decode's cost refuses.
    public static func write(to folder: URL) throws {
        for (name, data) in try all() { try data.write(to: folder.appendingPathComponent(name)) }
        try fullChromaGrid().write(to: folder.appendingPathComponent("full-chroma-grid.avif"))
    }

}

extension Optional {
    fileprivate func orThrow(_ reason: String) throws -> Wrapped {
        guard let self else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: reason]) }
        return self
    }
}
