/// What a HEIF or AVIF file's boxes say of its images, read before libheif
/// sees the bytes, and the shapes refused from them alone.
///
/// libheif 1.15 decodes a grid by decoding each of its tile references,
/// separately and as they come, with a thread for each level: a grid that
/// lists itself as a tile recurses until thread creation fails and the
/// process aborts; tens of thousands of references to one small tile cost
/// as many decodes; grids of grids multiply them. None of it shows in the
/// image's size, so ``check(maxTiles:)`` goes by the structure.
package struct HEIFStructure: Sendable, Equatable {
    /// A width and height, from an `ispe` property.
    struct Size: Sendable, Equatable {
        var width: Int
        var height: Int
    }

    /// A grid's description (its ImageGrid data): tiles in rows and
    /// columns, placed on a canvas of the output size.
    struct Grid: Sendable, Equatable {
        var rows: Int
        var columns: Int
        var outputWidth: Int
        var outputHeight: Int
    }

    struct Item: Sendable, Equatable {
        /// The `infe` type, such as "av01", "hvc1", "grid" or "Exif";
        /// four NULs for an entry of a version without one.
        var type: String
        /// The first `ispe` associated with it.
        var size: Size?
        /// Its `dimg` references in order, repeats kept: a grid's tiles, an
        /// overlay's layers.
        var references: [Int] = []
        /// The items it is an auxiliary image of (`auxl`: alpha, depth),
        /// which libheif decodes it with.
        var auxiliaryOf: [Int] = []
        /// The items it is a thumbnail of (`thmb`).
        var thumbnailOf: [Int] = []
        /// A grid's description, where its item data could be read.
        var grid: Grid?
    }

    /// How the coded images are sampled, the costliest of any in the file.
    struct Coding: Sendable, Equatable {
        /// 4:4:4 or 4:2:2 rather than 4:2:0 (or grey).
        var fullChroma = false
        /// More than 8 bits a sample.
        var highBitDepth = false

        static let worst = Coding(fullChroma: true, highBitDepth: true)
    }

    /// The `pitm` item, the image a file is decoded as.
    var primaryItem: Int?
    var items: [Int: Item]
    var coding = Coding()

    /// The most items, references, properties or associations read: real
    /// files have a few, a camera's grid a few hundred.
    static let maxEntries = 100_000

    /// The item types libheif makes from other items (their `dimg`
    /// references), decoding each of them for it.
    static let derivedTypes: Set<String> = ["grid", "iovl", "iden"]

    /// How deep images decoded for another may nest: an overlay of grids
    /// of tiles, each with an alpha image, is 3.
    static let maxNesting = 3
}

extension HEIFStructure {
    /// Refuses what decoding the primary image would follow into a shape
    /// libheif cannot survive or that costs far more than its size says:
    /// images that refer to themselves, grids inside grids, images nested
    /// deeper than ``maxNesting``, more than `maxTiles` coded images
    /// decoded in all (every reference counted, repeats too, as libheif
    /// decodes each), and grids whose tiles do not exactly cover their
    /// canvas. Decoding the primary image decodes its auxiliary images
    /// (alpha) and theirs, and its thumbnails may be decoded in its place,
    /// so they are checked with it. A file without its primary item
    /// passes: libheif refuses it.
    package func check(maxTiles: Int) throws(DarkroomError) {
        guard let primaryItem, items[primaryItem] != nil else { return }
        var auxiliaries: [Int: [Int]] = [:]
        var roots = [primaryItem]
        for id in items.keys.sorted() {
            guard let item = items[id] else { continue }
            for master in item.auxiliaryOf { auxiliaries[master, default: []].append(id) }
            if id != primaryItem, item.thumbnailOf.contains(primaryItem) { roots.append(id) }
        }
        var visits: [Int: Visit] = [:]
        var decodes = 0
        for root in roots {
            try walk(from: root, auxiliaries: auxiliaries, visits: &visits)
            if case .closed(_, let count)? = visits[root] { decodes = Self.sum(decodes, count) }
        }
        guard decodes <= maxTiles else {
            throw DarkroomError(.tooComplex, "decoding the HEIF image would decode \(decodes) tiles or images (every reference counted, repeats too), over the limit of \(maxTiles)")
        }
        for id in visits.keys.sorted() where items[id]?.type == "grid" {
            try checkGrid(id)
        }
    }

    private enum Visit: Equatable {
        /// On the path being walked.
        case open
        /// Walked: how deep the images decoded for it nest, and how many
        /// coded images decoding it decodes.
        case closed(depth: Int, decodes: Int)
    }

    /// An item being walked, and what decoding it decodes: its `dimg`
    /// references (for a derived image), then its auxiliary images.
    private struct Frame {
        let id: Int
        let isGrid: Bool
        let isDerived: Bool
        let next: [Int]
        let derivedCount: Int
        var visited = 0

        init(_ id: Int, _ item: Item, auxiliaries: [Int: [Int]]) {
            let isDerived = HEIFStructure.derivedTypes.contains(item.type)
            let derived = isDerived ? item.references : []
            self.id = id
            self.isGrid = item.type == "grid"
            self.isDerived = isDerived
            self.next = derived + (auxiliaries[id] ?? [])
            self.derivedCount = derived.count
        }
    }

    /// Depth first, on a stack of its own (a chain of a hundred thousand
    /// items must not take as deep a call stack), each item once.
    private func walk(from root: Int, auxiliaries: [Int: [Int]], visits: inout [Int: Visit]) throws(DarkroomError) {
        guard visits[root] == nil, let rootItem = items[root] else { return }
        visits[root] = .open
        var stack = [Frame(root, rootItem, auxiliaries: auxiliaries)]
        while let top = stack.last {
            if top.visited < top.next.count {
                stack[stack.count - 1].visited += 1
                let child = top.next[top.visited]
                guard let item = items[child] else {
                    throw DarkroomError(.corruptImage, "the HEIF image's \(name(top.id)) refers to item \(child), which the file does not have")
                }
                // A grid that lists itself is named for the loop, not as a
                // grid inside a grid.
                if visits[child] == .open { throw cycle(at: child, stack: stack) }
                if top.isGrid, top.visited < top.derivedCount, Self.derivedTypes.contains(item.type) {
                    let inner = item.type == "grid" ? "a grid" : item.type == "iovl" ? "an overlay" : "a derived image"
                    throw DarkroomError(.corruptImage, "the HEIF image has \(inner) inside a grid (item \(child), a tile of item \(top.id)): a grid's tiles must be coded images")
                }
                guard visits[child] == nil else { continue }
                visits[child] = .open
                stack.append(Frame(child, item, auxiliaries: auxiliaries))
            } else {
                stack.removeLast()
                var depth = 0, decodes = top.isDerived ? 0 : 1
                for child in top.next {
                    guard case .closed(let childDepth, let childDecodes)? = visits[child] else { continue }
                    depth = max(depth, childDepth + 1)
                    decodes = Self.sum(decodes, childDecodes)
                }
                guard depth <= Self.maxNesting else {
                    throw DarkroomError(.tooComplex, "the HEIF image's \(name(top.id)) is made of images nested \(depth) deep, over the limit of \(Self.maxNesting)")
                }
                visits[top.id] = .closed(depth: depth, decodes: decodes)
            }
        }
    }

    private func cycle(at id: Int, stack: [Frame]) -> DarkroomError {
        let start = stack.firstIndex { $0.id == id } ?? stack.count - 1
        let between = stack[(start + 1)...].map(\.id)
        var through = ""
        if between.count == 1 {
            through = " through item \(between[0])"
        } else if between.count > 1 {
            let named = between.prefix(3).map { "\($0)" }.joined(separator: ", ")
            through = " through items \(named)" + (between.count > 3 ? " and \(between.count - 3) more" : "")
        }
        return DarkroomError(.corruptImage, "the HEIF image's \(name(id)) refers to itself\(through), which would never end")
    }

    /// libheif places a grid's tiles one after another and crops the last
    /// row and column to the canvas: they must be as many as the grid says,
    /// all of one size, and cover the canvas with no row or column wholly
    /// outside it.
    private func checkGrid(_ id: Int) throws(DarkroomError) {
        guard let item = items[id] else { return }
        let what = "the HEIF image's \(name(id))"
        guard let grid = item.grid else {
            throw DarkroomError(.corruptImage, "\(what) has no description of its rows, columns and size that can be read")
        }
        guard item.references.count == grid.rows * grid.columns else {
            throw DarkroomError(.corruptImage, "\(what) is \(grid.columns) x \(grid.rows) tiles (columns x rows) but lists \(item.references.count)")
        }
        var common: Size?
        for tile in item.references {
            guard let size = items[tile]?.size else {
                throw DarkroomError(.corruptImage, "tile item \(tile) of \(what) has no size (ispe)")
            }
            guard size.width > 0, size.height > 0 else {
                throw DarkroomError(.corruptImage, "tile item \(tile) of \(what) is declared \(size.width) x \(size.height) pixels")
            }
            if let common, common != size {
                throw DarkroomError(.corruptImage, "\(what) has tiles of different sizes, \(common.width) x \(common.height) and \(size.width) x \(size.height)")
            }
            common = size
        }
        guard let tileSize = common else { return }
        func covers(_ count: Int, _ tile: Int, _ total: Int) -> Bool {
            count * tile >= total && (count - 1) * tile < total
        }
        guard covers(grid.columns, tileSize.width, grid.outputWidth), covers(grid.rows, tileSize.height, grid.outputHeight) else {
            throw DarkroomError(.corruptImage, "\(what) is \(grid.columns) x \(grid.rows) tiles of \(tileSize.width) x \(tileSize.height), which do not tile its \(grid.outputWidth) x \(grid.outputHeight) canvas")
        }
    }

    private func name(_ id: Int) -> String {
        let kind = switch items[id]?.type ?? "" {
        case "grid": "grid"
        case "iovl": "overlay"
        case "iden": "derived image"
        default: "image"
        }
        return "\(kind) (item \(id))"
    }

    private static func sum(_ a: Int, _ b: Int) -> Int {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : total
    }
}
