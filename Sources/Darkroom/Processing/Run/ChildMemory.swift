/// What a drawing child (PDF pages, video frames, SVG, the HEIC and large
/// AVIF encoder) may map, and how much of it its request's budget pays for.
///
/// A child maps about 470 MiB of address space before its work starts
/// (libraries, thread stacks, allocator arenas; about 75 MiB of it
/// resident), measured as the peak of `darkroom render-svg` drawing a
/// 100 x 100 document. What it maps past ``base`` is its work, and that
/// share comes out of the request's budget (``ImageLimits/maxDecodeMemory``)
/// for as long as the child runs: the child's limit is the base plus what
/// the budget has left, never more than its configured most.
/// The server's own memory ledger (the cgroup's usage, which the pressure
/// monitor reads) counts children with the server, being one group.
public enum ChildMemory {
    /// The address space a child maps before it does any work.
    public static let base = 512 << 20

    /// What a child may be configured to map: at least its base.
    public static let range = base...(64 << 30)

    /// The least working share worth starting a child for.
    static let minimumShare = 16 << 20

    /// The limit a child runs under when its request's budget has
    /// `left` bytes and it may map at most `most`.
    static func limit(most: Int, left: Int) -> Int {
        min(most, base + max(0, left))
    }
}
