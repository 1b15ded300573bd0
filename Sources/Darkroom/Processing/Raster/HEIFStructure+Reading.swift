extension HEIFStructure {
    /// The structure of an ISO media file's `meta` box; nil when the bytes
    /// do not start with an `ftyp` box or have no whole `meta` box at the
    /// top level (libheif stops at a box cut short and reads no further, as
    /// here). A second top-level `meta` box, a box inside it that is
    /// damaged or cut short, or more than ``maxEntries`` of anything, is
    /// refused.
    package static func read(_ bytes: UnsafeRawBufferPointer) throws(DarkroomError) -> HEIFStructure? {
        var top = Boxes(Cursor(bytes, 0..<bytes.count))
        guard let first = top.next(), first.type == Code.ftyp else { return nil }
        var meta: Box?
        while let box = top.next() {
            guard box.type == Code.meta else { continue }
            // libheif reads every top-level meta box and keeps the last: a
            // harmless first one must not hide the one it decodes.
            guard meta == nil else {
                throw DarkroomError(.corruptImage, "the HEIF file has more than one meta box, where a file has one")
            }
            meta = box
        }
        guard let meta else { return nil }
        var parser = Parser(bytes: bytes)
        try parser.meta(meta.payload)
        return parser.structure()
    }
}

/// Big-endian reads over part of the file, each checked against its end:
/// nil rather than a read past it.
private struct Cursor {
    let bytes: UnsafeRawBufferPointer
    private(set) var at: Int
    let end: Int

    /// `range` must lie within `bytes`.
    init(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        self.bytes = bytes
        at = range.lowerBound
        end = range.upperBound
    }

    var remaining: Int { end - at }

    /// An unsigned integer of `size` bytes, 0 to 8 (0 reads as 0).
    mutating func uint(_ size: Int) -> UInt64? {
        guard size >= 0, size <= 8, size <= remaining else { return nil }
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(bytes[at + offset]) }
        at += size
        return value
    }

    /// An integer of 1 to 4 bytes, which always fits an Int.
    mutating func int(_ size: Int) -> Int? {
        guard size <= 4 else { return nil }
        return uint(size).map { Int($0) }
    }

    mutating func u8() -> Int? { int(1) }
    mutating func u16() -> Int? { int(2) }
    mutating func u32() -> Int? { int(4) }

    /// A FullBox's version; its flags are skipped.
    mutating func version() -> Int? {
        guard let version = u8(), skip(3) else { return nil }
        return version
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        at += count
        return true
    }
}

/// One box: its type and where its payload lies.
private struct Box {
    var type: UInt32
    var payload: Range<Int>
}

/// The boxes one after another in a range, each checked to lie within it.
private struct Boxes {
    var cursor: Cursor
    /// Set where a box's size is impossible or runs past the range's end,
    /// or fewer bytes than a header are left.
    private(set) var damaged = false

    init(_ cursor: Cursor) { self.cursor = cursor }

    /// The next box; nil at the end of the range, or at a damaged box.
    mutating func next() -> Box? {
        guard !damaged, cursor.remaining > 0 else { return nil }
        let start = cursor.at, available = cursor.remaining
        guard let small = cursor.uint(4), let type = cursor.uint(4) else { damaged = true; return nil }
        var size = small
        if small == 1 {
            guard let large = cursor.uint(8) else { damaged = true; return nil }
            size = large
        } else if small == 0 {
            // To the end of the enclosing box, or of the file.
            size = UInt64(available)
        }
        // A uuid box's extended type is part of its header, as libheif reads it.
        if type == UInt64(Code.uuid), !cursor.skip(16) { damaged = true; return nil }
        let header = cursor.at - start
        guard size >= UInt64(header), size <= UInt64(available) else { damaged = true; return nil }
        let end = start + Int(size)
        let box = Box(type: UInt32(type), payload: cursor.at..<end)
        _ = cursor.skip(end - cursor.at)
        return box
    }
}

/// Four-character codes.
private enum Code {
    static func of(_ text: String) -> UInt32 { text.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    static func text(_ code: UInt32) -> String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> UInt32($0)) }, as: UTF8.self)
    }

    static let ftyp = Code.of("ftyp"), meta = Code.of("meta"), uuid = Code.of("uuid")
    static let pitm = Code.of("pitm"), iinf = Code.of("iinf"), infe = Code.of("infe"), iloc = Code.of("iloc"), idat = Code.of("idat")
    static let iref = Code.of("iref"), dimg = Code.of("dimg"), auxl = Code.of("auxl"), thmb = Code.of("thmb")
    static let iprp = Code.of("iprp"), ipco = Code.of("ipco"), ipma = Code.of("ipma"), ispe = Code.of("ispe")
    static let av1C = Code.of("av1C"), hvcC = Code.of("hvcC")
}

/// Where an item's data lies (its `iloc` entry), as far as a grid's
/// description needs: the first extents.
private struct Location {
    struct Extent {
        var offset: UInt64
        var length: UInt64
    }

    var constructionMethod: Int
    var baseOffset: UInt64
    var extents: [Extent]

    /// Enough for 12 bytes of data, even one byte an extent.
    static let extentsKept = 12
}

/// Reads the boxes of a `meta` box into tables, then puts them together:
/// the boxes may come in any order.
private struct Parser {
    let bytes: UnsafeRawBufferPointer
    var primaryItem: Int?
    var types: [Int: String] = [:]
    var entries = 0
    var associationEntries = 0
    var locations: [Int: Location] = [:]
    var idat: Range<Int>?
    var references: [Int: [Int]] = [:]
    var auxiliaryOf: [Int: [Int]] = [:]
    var thumbnailOf: [Int: [Int]] = [:]
    var referenceCount = 0
    var sizes: [Int: HEIFStructure.Size] = [:]
    var associatedItems: Set<Int> = []
    var sawProperties = false
    var coding = HEIFStructure.Coding()

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    static func damaged(_ box: String) -> DarkroomError {
        DarkroomError(.corruptImage, "the HEIF image's \(box) box is damaged or cut short")
    }

    static func tooMany(_ what: String, _ count: Int? = nil) -> DarkroomError {
        let counted = count.map { "\($0)" } ?? "more than \(HEIFStructure.maxEntries)"
        return DarkroomError(.tooComplex, "the HEIF image lists \(counted) \(what), over the limit of \(HEIFStructure.maxEntries)")
    }

    /// Where one box's children would be: the rest of its payload, from `cursor`.
    func children(after cursor: Cursor) -> Boxes {
        Boxes(Cursor(bytes, cursor.at..<cursor.end))
    }

    /// The first of each box counts where libheif reads only the first
    /// (pitm, idat, iprp, an item's first entry); references are read from
    /// every iref, which can only find more to refuse.
    mutating func meta(_ payload: Range<Int>) throws(DarkroomError) {
        var cursor = Cursor(bytes, payload)
        guard cursor.version() != nil else { throw Self.damaged("meta") }
        var boxes = children(after: cursor)
        while let box = boxes.next() {
            switch box.type {
            case Code.pitm: try pitm(box)
            case Code.iinf: try iinf(box)
            case Code.iloc: try iloc(box)
            case Code.iref: try iref(box)
            case Code.idat: if idat == nil { idat = box.payload }
            case Code.iprp: if !sawProperties { sawProperties = true; try iprp(box) }
            default: break
            }
        }
        if boxes.damaged { throw Self.damaged("meta") }
    }

    mutating func pitm(_ box: Box) throws(DarkroomError) {
        var cursor = Cursor(bytes, box.payload)
        guard let version = cursor.version(), let id = cursor.int(version == 0 ? 2 : 4) else { throw Self.damaged("pitm") }
        if primaryItem == nil { primaryItem = id }
    }

    mutating func iinf(_ box: Box) throws(DarkroomError) {
        var cursor = Cursor(bytes, box.payload)
        guard let version = cursor.version(), let count = cursor.int(version == 0 ? 2 : 4) else { throw Self.damaged("iinf") }
        guard count <= HEIFStructure.maxEntries else { throw Self.tooMany("items", count) }
        // Every entry there is, whatever the count says.
        var boxes = children(after: cursor)
        while let entry = boxes.next() {
            guard entry.type == Code.infe else { continue }
            entries += 1
            guard entries <= HEIFStructure.maxEntries else { throw Self.tooMany("items") }
            try infe(entry)
        }
        if boxes.damaged { throw Self.damaged("iinf") }
    }

    /// Versions 2 and 3 carry the item's type; 0 and 1 none.
    mutating func infe(_ box: Box) throws(DarkroomError) {
        var cursor = Cursor(bytes, box.payload)
        guard let version = cursor.version() else { throw Self.damaged("infe") }
        let id: Int, type: String
        if version >= 2 {
            guard let itemID = cursor.int(version == 2 ? 2 : 4), cursor.skip(2), let code = cursor.u32() else { throw Self.damaged("infe") }
            id = itemID
            type = Code.text(UInt32(code))
        } else {
            guard let itemID = cursor.u16() else { throw Self.damaged("infe") }
            id = itemID
            type = Code.text(0)
        }
        if types[id] == nil { types[id] = type }
    }

    mutating func iloc(_ box: Box) throws(DarkroomError) {
        var cursor = Cursor(bytes, box.payload)
        guard let version = cursor.version() else { throw Self.damaged("iloc") }
        // No reader knows a later version; a grid whose data cannot be
        // found is refused by the check.
        guard version <= 2 else { return }
        guard let sizes = cursor.u8(), let more = cursor.u8(), let count = cursor.int(version < 2 ? 2 : 4) else { throw Self.damaged("iloc") }
        let offsetSize = sizes >> 4, lengthSize = sizes & 0xF, baseSize = more >> 4
        let indexSize = version >= 1 ? more & 0xF : 0
        guard [offsetSize, lengthSize, baseSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }) else { throw Self.damaged("iloc") }
        guard count <= HEIFStructure.maxEntries else { throw Self.tooMany("item locations", count) }
        for _ in 0..<count {
            guard let id = cursor.int(version < 2 ? 2 : 4) else { throw Self.damaged("iloc") }
            var method = 0
            if version >= 1 {
                guard let field = cursor.u16() else { throw Self.damaged("iloc") }
                method = field & 0xF
            }
            guard cursor.skip(2), let base = cursor.uint(baseSize), let extentCount = cursor.u16() else { throw Self.damaged("iloc") }
            // Extents of 0 bytes each (all sizes 0) take no room: without
            // this, 65,535 of them an item would be walked for nothing.
            let extentBytes = indexSize + offsetSize + lengthSize
            guard extentCount * extentBytes <= cursor.remaining else { throw Self.damaged("iloc") }
            var extents: [Location.Extent] = []
            for _ in 0..<(extentBytes == 0 ? min(extentCount, Location.extentsKept) : extentCount) {
                guard cursor.skip(indexSize), let offset = cursor.uint(offsetSize), let length = cursor.uint(lengthSize) else {
                    throw Self.damaged("iloc")
                }
                if extents.count < Location.extentsKept { extents.append(Location.Extent(offset: offset, length: length)) }
            }
            if locations[id] == nil { locations[id] = Location(constructionMethod: method, baseOffset: base, extents: extents) }
        }
    }

    /// libheif reads a reference's IDs one after another, not by its box's
    /// size, so a reference box whose size says otherwise would be read
    /// two ways: it is refused rather than guessed at.
    mutating func iref(_ box: Box) throws(DarkroomError) {
        var cursor = Cursor(bytes, box.payload)
        guard let version = cursor.version() else { throw Self.damaged("iref") }
        let idSize = version == 0 ? 2 : 4
        var boxes = children(after: cursor)
        while let reference = boxes.next() {
            var ids = Cursor(bytes, reference.payload)
            guard let from = ids.int(idSize), let count = ids.u16(), ids.remaining == count * idSize else { throw Self.damaged("iref") }
            referenceCount += count
            guard referenceCount <= HEIFStructure.maxEntries else { throw Self.tooMany("item references") }
            var to: [Int] = []
            to.reserveCapacity(count)
            for _ in 0..<count {
                guard let id = ids.int(idSize) else { throw Self.damaged("iref") }
                to.append(id)
            }
            switch reference.type {
            case Code.dimg: references[from, default: []].append(contentsOf: to)
            case Code.auxl: auxiliaryOf[from, default: []].append(contentsOf: to)
            case Code.thmb: thumbnailOf[from, default: []].append(contentsOf: to)
            default: break
            }
        }
        if boxes.damaged { throw Self.damaged("iref") }
    }

    /// The first `ipco`'s sizes, then every `ipma`'s associations with them.
    mutating func iprp(_ box: Box) throws(DarkroomError) {
        var properties: [Int: HEIFStructure.Size]?
        var boxes = Boxes(Cursor(bytes, box.payload))
        while properties == nil, let child = boxes.next() {
            if child.type == Code.ipco { properties = try ipco(child) }
        }
        if boxes.damaged { throw Self.damaged("iprp") }
        boxes = Boxes(Cursor(bytes, box.payload))
        while let child = boxes.next() {
            if child.type == Code.ipma { try ipma(child, properties: properties ?? [:]) }
        }
    }

    /// The `ispe` sizes among the properties, by their index from 1; the
    /// codecs' configurations count into ``coding``.
    mutating func ipco(_ box: Box) throws(DarkroomError) -> [Int: HEIFStructure.Size] {
        var sizes: [Int: HEIFStructure.Size] = [:]
        var boxes = Boxes(Cursor(bytes, box.payload))
        var index = 0
        while let property = boxes.next() {
            index += 1
            guard index <= HEIFStructure.maxEntries else { throw Self.tooMany("item properties") }
            if property.type == Code.av1C || property.type == Code.hvcC { configuration(property) }
            guard property.type == Code.ispe else { continue }
            var cursor = Cursor(bytes, property.payload)
            guard cursor.version() != nil, let width = cursor.u32(), let height = cursor.u32() else { throw Self.damaged("ispe") }
            sizes[index] = HEIFStructure.Size(width: width, height: height)
        }
        if boxes.damaged { throw Self.damaged("ipco") }
        return sizes
    }

    /// A codec's configuration: its chroma sampling and bit depth, which
    /// set what libheif holds to decode it. Too short to read counts as the
    /// costliest (the decoder reads the coded stream, not this box).
    mutating func configuration(_ property: Box) {
        let payload = property.payload
        func byte(_ offset: Int) -> Int? {
            payload.count > offset ? Int(bytes[payload.lowerBound + offset]) : nil
        }
        if property.type == Code.av1C {
            // high_bitdepth, then monochrome and chroma_subsampling_x.
            guard let flags = byte(2) else { coding = .worst; return }
            coding.highBitDepth = coding.highBitDepth || flags & 0x40 != 0
            coding.fullChroma = coding.fullChroma || flags & 0x18 == 0
        } else {
            // chromaFormat (3 is 4:4:4, 2 is 4:2:2) and bitDepthLumaMinus8.
            guard let chroma = byte(16), let depth = byte(17) else { coding = .worst; return }
            coding.highBitDepth = coding.highBitDepth || depth & 0x07 != 0
            coding.fullChroma = coding.fullChroma || chroma & 0x03 >= 2
        }
    }

    /// An item's first entry counts, as libheif reads it; like libheif,
    /// entries stop where the box ends, whatever their count says.
    mutating func ipma(_ box: Box, properties: [Int: HEIFStructure.Size]) throws(DarkroomError) {
        var cursor = Cursor(bytes, box.payload)
        guard let version = cursor.u8(), let flags = cursor.int(3), let count = cursor.u32() else { throw Self.damaged("ipma") }
        let wide = flags & 1 != 0
        for _ in 0..<min(count, HEIFStructure.maxEntries + 1) {
            guard cursor.remaining > 0 else { break }
            associationEntries += 1
            guard associationEntries <= HEIFStructure.maxEntries else { throw Self.tooMany("items' properties") }
            guard let id = cursor.int(version < 1 ? 2 : 4), let associations = cursor.u8() else { throw Self.damaged("ipma") }
            let first = associatedItems.insert(id).inserted
            for _ in 0..<associations {
                guard let value = cursor.int(wide ? 2 : 1) else { throw Self.damaged("ipma") }
                let index = value & (wide ? 0x7FFF : 0x7F)
                // The last ispe, as libheif takes it (each replaces the one before).
                if first, let size = properties[index] { sizes[id] = size }
            }
        }
    }

    func structure() -> HEIFStructure {
        var items: [Int: HEIFStructure.Item] = [:]
        items.reserveCapacity(types.count)
        for (id, type) in types {
            var item = HEIFStructure.Item(type: type, size: sizes[id])
            item.references = references[id] ?? []
            item.auxiliaryOf = auxiliaryOf[id] ?? []
            item.thumbnailOf = thumbnailOf[id] ?? []
            if type == "grid", let location = locations[id] { item.grid = grid(at: location) }
            items[id] = item
        }
        return HEIFStructure(primaryItem: primaryItem, items: items, coding: coding)
    }

    /// A grid's description from the first bytes of its data: in the file
    /// (construction method 0) or in `idat` (1). An extent of length 0
    /// runs to the end of its source.
    func grid(at location: Location) -> HEIFStructure.Grid? {
        let source: Range<Int>
        switch location.constructionMethod {
        case 0: source = 0..<bytes.count
        case 1:
            guard let idat else { return nil }
            source = idat
        default: return nil
        }
        var data: [UInt8] = []
        for extent in location.extents where data.count < 12 {
            let (start, overflow) = location.baseOffset.addingReportingOverflow(extent.offset)
            guard !overflow, start <= UInt64(source.count) else { break }
            let available = UInt64(source.count) - start
            let length = extent.length == 0 ? available : min(extent.length, available)
            let from = source.lowerBound + Int(start)
            data.append(contentsOf: bytes[from..<from + Int(min(length, UInt64(12 - data.count)))])
            // An extent cut short: what follows it is not the data's.
            if extent.length > available { break }
        }
        return HEIFStructure.Grid(description: data)
    }
}

extension HEIFStructure.Grid {
    /// ImageGrid: version, flags, rows - 1, columns - 1, then the output
    /// size in 16 bits, or 32 where flags & 1.
    init?(description data: [UInt8]) {
        guard data.count >= 8 else { return nil }
        let wide = data[1] & 1 != 0
        guard !wide || data.count >= 12 else { return nil }
        let width = wide ? Self.field(data, at: 4, size: 4) : Self.field(data, at: 4, size: 2)
        let height = wide ? Self.field(data, at: 8, size: 4) : Self.field(data, at: 6, size: 2)
        self.init(rows: Int(data[2]) + 1, columns: Int(data[3]) + 1, outputWidth: width, outputHeight: height)
    }

    private static func field(_ data: [UInt8], at: Int, size: Int) -> Int {
        data[at..<at + size].reduce(0) { $0 << 8 | Int($1) }
    }
}
