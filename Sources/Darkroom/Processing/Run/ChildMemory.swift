/// What a drawing child (PDF pages, video frames, SVG, the HEIC and large
/// AVIF encoder) may map, and how much of it its request's budget pays for.
///
/// A child maps about 470 MiB of address space before its work starts
/// (libraries, thread stacks, allocator arenas; about 75 MiB of it
/// resident), measured as the peak of `darkroom render-svg` drawing a
/// 100 x 100 document. What it holds resident before it works
/// (``residentBase``), the drawing it sends back, and what it maps past
/// ``base`` (its work) all come out of the request's budget
/// (``ImageLimits/maxDecodeMemory``) for as long as the child runs: the
/// child's limit is the base plus what the budget has left, never more
/// than its configured most.
/// The server's own memory ledger (the cgroup's usage, which the pressure
/// monitor reads) counts children with the server, being one group.
public enum ChildMemory {
    /// The address space a child maps before it does any work.
    public static let base = 512 << 20

    /// What a child holds resident before it works, rounded up from the
    /// 75 MiB measured: held in its request's budget while it runs, so
    /// that the budget counts the whole child, not only its work.
    public static let residentBase = 80 << 20

    /// What a child may be configured to map: at least its base.
    public static let range = base...(64 << 30)

    /// The least working share worth starting a child for.
    static let minimumShare = 16 << 20

    /// The bytes of an uncompressed RGBA PNG of `pixels`: four a pixel,
    /// a filter byte a row (at most one an eighth of the pixels) and the
    /// headers.
    static func pngBytes(_ pixels: Int) -> Int {
        MemoryCost.product(pixels, 4) &+ pixels / 8 &+ (1 << 20)
    }

    /// The most pixels a drawing may be sent back with when its request's
    /// budget has `left` bytes: the pixel limit, or less, so that its PNG
    /// leaves the child its least working share; never under a megapixel
    /// (or the limit), so that a budget too small for a drawing refuses it
    /// rather than drawing it smaller than anyone would want.
    static func drawablePixels(limit: Int, left: Int) -> Int {
        let room = left - minimumShare - (1 << 20)
        let fits = room > 0 ? room / 33 * 8 : 0
        return min(limit, max(fits, 1_000_000))
    }

    /// How an error names the most pixels a child could draw: the pixel
    /// limit, or what the budget left of it.
    static func pixelLimitSaid(_ pixels: Int, limit: Int) -> String {
        pixels < limit ? "the \(pixels) pixels the request's memory leaves for it (the pixel limit is \(limit))" : "the pixel limit of \(limit) allows"
    }

    /// The limit a child runs under when its request's budget has
    /// `left` bytes and it may map at most `most`.
    static func limit(most: Int, left: Int) -> Int {
        min(most, base + max(0, left))
    }
}
