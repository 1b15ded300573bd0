@testable import Darkroom
import Testing

/// What a drawing child may send back, as its request's budget allows.
struct ChildMemoryTests {
    /// The pixel limit where the budget holds its PNG beside the child's
    /// least share; fewer pixels where it cannot, the PNG and the share
    /// then within what was left; never under a megapixel.
    @Test func aDrawingsPixelsFollowWhatTheBudgetHasLeft() {
        let limit = 50_000_000
        #expect(ChildMemory.drawablePixels(limit: limit, left: 1 << 30) == limit)
        // 256 MiB, less the child's resident base: 176 MiB left.
        let left = (256 << 20) - ChildMemory.residentBase
        let pixels = ChildMemory.drawablePixels(limit: limit, left: left)
        #expect(pixels < limit && pixels > 30_000_000, "\(pixels)")
        #expect(ChildMemory.pngBytes(pixels) + ChildMemory.minimumShare <= left)
        #expect(ChildMemory.drawablePixels(limit: limit, left: 1 << 20) == 1_000_000)
        #expect(ChildMemory.drawablePixels(limit: 500, left: 1 << 20) == 500)
    }
}
