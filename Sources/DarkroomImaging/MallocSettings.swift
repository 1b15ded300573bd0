internal import CVips

/// glibc's malloc settings, reached through the C shim (Swift's Glibc
/// module does not bring `malloc.h`).
package enum MallocSettings {
    package static func limitArenas(to arenas: Int) {
        darkroom_malloc_limit_arenas(Int32(clamping: arenas))
    }

    package static func mapLargeBlocks(over bytes: Int) {
        darkroom_malloc_map_large(max(0, min(bytes, Int(Int32.max))))
    }

    package static func keepFreeTop(upTo bytes: Int) {
        darkroom_malloc_keep_free_top(max(0, min(bytes, Int(Int32.max))))
    }

    package static func trim() {
        darkroom_malloc_trim()
    }
}
