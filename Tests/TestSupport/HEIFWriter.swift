public import Foundation

/// Small AVIF files made in memory: grids of a real coded tile, in shapes
/// no encoder writes (grids that list themselves, grids of grids, tens of
/// thousands of references to one tile, tiles declared 0 x 0), for the
/// tests of what is refused from a file's structure before libheif reads
/// it. Laid out as libheif writes them: `ftyp`, `meta` (grid descriptions
/// in its `idat`), then `mdat` with every coded tile.
public enum HEIFWriter {
    /// A coded image: its item type, its codec configuration property (the
    /// whole box, such as `av1C`), its coded bytes, and the size its `ispe`
    /// declares.
    public struct Tile: Sendable {
        public var codec: String
        public var config: Data
        public var data: Data
        public var width: Int
        public var height: Int

        public init(codec: String = "av01", config: Data, data: Data, width: Int, height: Int) {
            self.codec = codec
            self.config = config
            self.data = data
            self.width = width
            self.height = height
        }

        /// The same coded image with another size in its `ispe`.
        public func declared(width: Int, height: Int) -> Tile {
            var copy = self
            copy.width = width
            copy.height = height
            return copy
        }
    }

    /// One item of a file. Items are numbered from 1 in the order given:
    /// the item at index i has ID i + 1.
    public enum Item: Sendable {
        case coded(Tile)
        /// A grid whose tiles (its `dimg` references, row by row) are the
        /// items at `references`, indexes into the file's items.
        case grid(rows: Int, columns: Int, outputWidth: Int, outputHeight: Int, references: [Int])
    }

    /// A file of two items, `tile` (index 0) and a grid of it (index 1, the
    /// primary image): by default rows x columns references to the tile on
    /// a canvas they exactly cover.
    public static func grid(tile: Tile, rows: Int, columns: Int, outputWidth: Int? = nil, outputHeight: Int? = nil,
                            references: [Int]? = nil) -> Data {
        let grid = Item.grid(rows: rows, columns: columns,
                             outputWidth: outputWidth ?? columns * tile.width, outputHeight: outputHeight ?? rows * tile.height,
                             references: references ?? Array(repeating: 0, count: rows * columns))
        return file([.coded(tile), grid], primary: 1)
    }

    /// A file of `items`, the one at index `primary` its primary image.
    public static func file(_ items: [Item], primary: Int) -> Data {
        let ftyp = box("ftyp", ascii("avif") + uint(0, 4) + ascii("mif1") + ascii("avif") + ascii("miaf"))
        var coded = Data()
        for case .coded(let tile) in items { coded.append(tile.data) }
        // The tiles' offsets are absolute: the meta box's size does not
        // depend on them (4 bytes each), so it is laid out once to measure.
        let dataStart = ftyp.count + meta(items, primary: primary, dataStart: 0).count + 8
        return ftyp + meta(items, primary: primary, dataStart: dataStart) + box("mdat", coded)
    }

    // MARK: Boxes

    public static func box(_ type: String, _ payload: Data) -> Data {
        precondition(payload.count + 8 <= Int(UInt32.max), "box too large")
        return uint(payload.count + 8, 4) + ascii(type) + payload
    }

    public static func fullBox(_ type: String, version: Int = 0, flags: Int = 0, _ payload: Data) -> Data {
        box(type, uint(version, 1) + uint(flags, 3) + payload)
    }

    /// `value` big-endian in `size` bytes.
    public static func uint(_ value: Int, _ size: Int) -> Data {
        Data((0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    static func ascii(_ code: String) -> Data {
        precondition(code.utf8.count == 4, "not a four-character code: \(code)")
        return Data(code.utf8)
    }

    static func meta(_ items: [Item], primary: Int, dataStart: Int) -> Data {
        precondition(items.count < 0xFFFF && items.indices.contains(primary))
        var gridTiles = Set<Int>()
        for case .grid(_, _, _, _, let references) in items { gridTiles.formUnion(references) }

        let hdlr = fullBox("hdlr", uint(0, 4) + ascii("pict") + uint(0, 12) + Data([0]))
        let pitm = fullBox("pitm", uint(primary + 1, 2))

        // Tiles hidden, as encoders write them: not images of their own.
        var entries = Data()
        for (index, item) in items.enumerated() {
            let type = switch item {
            case .coded(let tile): tile.codec
            case .grid: "grid"
            }
            entries.append(fullBox("infe", version: 2, flags: gridTiles.contains(index) ? 1 : 0,
                                   uint(index + 1, 2) + uint(0, 2) + ascii(type) + Data([0])))
        }
        let iinf = fullBox("iinf", uint(items.count, 2) + entries)

        // Version 1: offsets and lengths in 4 bytes, no base offset or
        // index; coded data in the file (construction method 0), grid
        // descriptions in idat (1).
        var locations = Data([0x44, 0x00]) + uint(items.count, 2)
        var idat = Data()
        var offset = dataStart
        for (index, item) in items.enumerated() {
            locations.append(uint(index + 1, 2))
            switch item {
            case .coded(let tile):
                locations.append(uint(0, 2) + uint(0, 2) + uint(1, 2) + uint(offset, 4) + uint(tile.data.count, 4))
                offset += tile.data.count
            case .grid(let rows, let columns, let width, let height, _):
                let description = gridDescription(rows: rows, columns: columns, width: width, height: height)
                locations.append(uint(1, 2) + uint(0, 2) + uint(1, 2) + uint(idat.count, 4) + uint(description.count, 4))
                idat.append(description)
            }
        }
        let iloc = fullBox("iloc", version: 1, locations)

        var references = Data()
        for (index, item) in items.enumerated() {
            guard case .grid(_, _, _, _, let tiles) = item else { continue }
            // Any index may be given, past the last item too: a reference to
            // an item the file does not have is one of the shapes tested.
            precondition(tiles.count <= 0xFFFF && tiles.allSatisfy { (0..<0xFFFF).contains($0) })
            var payload = uint(index + 1, 2) + uint(tiles.count, 2)
            for tile in tiles { payload.append(uint(tile + 1, 2)) }
            references.append(box("dimg", payload))
        }
        let iref = references.isEmpty ? Data() : fullBox("iref", references)

        // Each distinct property once; ipma version 0, flags 0: 7-bit
        // indexes from 1, the top bit for essential.
        var properties: [Data] = []
        var numbers: [Data: Int] = [:]
        func number(_ property: Data) -> Int {
            if let known = numbers[property] { return known }
            properties.append(property)
            numbers[property] = properties.count
            return properties.count
        }
        func ispe(_ width: Int, _ height: Int) -> Data { fullBox("ispe", uint(width, 4) + uint(height, 4)) }
        var associations = uint(items.count, 4)
        for (index, item) in items.enumerated() {
            let assigned: [Int] = switch item {
            case .coded(let tile): [0x80 | number(tile.config), number(ispe(tile.width, tile.height))]
            case .grid(_, _, let width, let height, _): [number(ispe(width, height))]
            }
            associations.append(uint(index + 1, 2) + uint(assigned.count, 1))
            for value in assigned { associations.append(uint(value, 1)) }
        }
        precondition(properties.count <= 0x7F)
        var ipco = Data()
        for property in properties { ipco.append(property) }
        let iprp = box("iprp", box("ipco", ipco) + fullBox("ipma", associations))

        let inline = idat.isEmpty ? Data() : box("idat", idat)
        return fullBox("meta", hdlr + pitm + iinf + iloc + iref + iprp + inline)
    }

    /// ImageGrid: version 0, flags (1 for 32-bit sizes), rows - 1,
    /// columns - 1, the output width and height.
    static func gridDescription(rows: Int, columns: Int, width: Int, height: Int) -> Data {
        precondition((1...256).contains(rows) && (1...256).contains(columns))
        let wide = width > 0xFFFF || height > 0xFFFF
        let size = wide ? 4 : 2
        return Data([0, wide ? 1 : 0, UInt8(rows - 1), UInt8(columns - 1)]) + uint(width, size) + uint(height, size)
    }

    // MARK: Reading a real tile

    /// The primary image of a single-image HEIF file as a tile: its type,
    /// its first codec configuration property (`av1C` or `hvcC`, the whole
    /// box), its coded bytes (from the file: construction method 0) and its
    /// `ispe` size. nil where the file is not of that shape.
    public static func primaryTile(of file: Data) -> Tile? {
        let bytes = [UInt8](file)
        guard let meta = boxes(bytes, 0..<bytes.count).first(where: { $0.type == "meta" }),
              meta.payload.count >= 4 else { return nil }
        let children = boxes(bytes, meta.payload.lowerBound + 4..<meta.payload.upperBound)
        func child(_ type: String) -> Found? { children.first { $0.type == type } }
        guard let pitm = child("pitm"), let iinf = child("iinf"), let iloc = child("iloc"), let iprp = child("iprp") else { return nil }

        var reader = Reader(bytes, pitm.payload)
        guard let pitmVersion = reader.int(1), reader.int(3) != nil, let primary = reader.int(pitmVersion == 0 ? 2 : 4) else { return nil }

        reader = Reader(bytes, iinf.payload)
        guard let iinfVersion = reader.int(1), reader.int(3) != nil, reader.int(iinfVersion == 0 ? 2 : 4) != nil else { return nil }
        var codec: String?
        for entry in boxes(bytes, reader.at..<iinf.payload.upperBound) where entry.type == "infe" {
            var infe = Reader(bytes, entry.payload)
            guard let version = infe.int(1), version >= 2, infe.int(3) != nil,
                  let id = infe.int(version == 2 ? 2 : 4), infe.int(2) != nil, let type = infe.text() else { continue }
            if id == primary { codec = type }
        }

        reader = Reader(bytes, iloc.payload)
        guard let version = reader.int(1), reader.int(3) != nil, let sizes = reader.int(1), let more = reader.int(1),
              let count = reader.int(version < 2 ? 2 : 4) else { return nil }
        let indexSize = version >= 1 ? more & 0xF : 0
        var coded: Data?
        for _ in 0..<count {
            guard let id = reader.int(version < 2 ? 2 : 4) else { return nil }
            var method = 0
            if version >= 1 {
                guard let field = reader.int(2) else { return nil }
                method = field & 0xF
            }
            guard reader.int(2) != nil, let base = reader.int(more >> 4), let extents = reader.int(2) else { return nil }
            var data = Data()
            for _ in 0..<extents {
                guard reader.int(indexSize) != nil, let offset = reader.int(sizes >> 4), let length = reader.int(sizes & 0xF),
                      base + offset + length <= bytes.count else { return nil }
                data.append(contentsOf: bytes[base + offset..<base + offset + length])
            }
            if id == primary, method == 0 { coded = data }
        }

        let properties = boxes(bytes, iprp.payload)
        guard let ipco = properties.first(where: { $0.type == "ipco" }),
              let ipma = properties.first(where: { $0.type == "ipma" }) else { return nil }
        let all = boxes(bytes, ipco.payload)
        reader = Reader(bytes, ipma.payload)
        guard let ipmaVersion = reader.int(1), let flags = reader.int(3), let entries = reader.int(4) else { return nil }
        var config: Data?
        var size: (width: Int, height: Int)?
        for _ in 0..<entries {
            guard let id = reader.int(ipmaVersion < 1 ? 2 : 4), let associations = reader.int(1) else { return nil }
            for _ in 0..<associations {
                guard let value = reader.int(flags & 1 == 1 ? 2 : 1) else { return nil }
                let index = value & (flags & 1 == 1 ? 0x7FFF : 0x7F)
                guard id == primary, all.indices.contains(index - 1) else { continue }
                let property = all[index - 1]
                if config == nil, ["av1C", "hvcC"].contains(property.type) { config = Data(bytes[property.whole]) }
                if size == nil, property.type == "ispe" {
                    var ispe = Reader(bytes, property.payload)
                    if ispe.int(4) != nil, let width = ispe.int(4), let height = ispe.int(4) { size = (width, height) }
                }
            }
        }
        guard let type = codec, let data = coded, let box = config, let declared = size else { return nil }
        return Tile(codec: type, config: box, data: data, width: declared.width, height: declared.height)
    }

    struct Found {
        var type: String
        var whole: Range<Int>
        var payload: Range<Int>
    }

    /// The whole boxes in `range`, up to the first that is cut short.
    static func boxes(_ bytes: [UInt8], _ range: Range<Int>) -> [Found] {
        var found: [Found] = []
        var reader = Reader(bytes, range)
        while reader.remaining >= 8 {
            let start = reader.at
            guard var size = reader.int(4), let type = reader.text() else { break }
            if size == 1 {
                guard let large = reader.int(8) else { break }
                size = large
            } else if size == 0 {
                size = range.upperBound - start
            }
            guard size >= reader.at - start, size <= range.upperBound - start else { break }
            found.append(Found(type: type, whole: start..<start + size, payload: reader.at..<start + size))
            reader.at = start + size
        }
        return found
    }

    /// Big-endian reads within a range; nil past its end.
    struct Reader {
        let bytes: [UInt8]
        var at: Int
        let end: Int

        init(_ bytes: [UInt8], _ range: Range<Int>) {
            self.bytes = bytes
            at = range.lowerBound
            end = range.upperBound
        }

        var remaining: Int { end - at }

        mutating func int(_ size: Int) -> Int? {
            guard size >= 0, size <= 8, size <= remaining else { return nil }
            let value = bytes[at..<at + size].reduce(0) { $0 << 8 | Int($1) }
            at += size
            return value
        }

        mutating func text() -> String? {
            guard remaining >= 4 else { return nil }
            defer { at += 4 }
            return String(decoding: bytes[at..<at + 4], as: UTF8.self)
        }
    }
}
