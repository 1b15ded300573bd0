extension Comparable {
    /// This value, moved to the nearest end of `range` when outside it:
    /// settings clamp what they are given rather than refuse it.
    func clamped(to range: ClosedRange<Self>) -> Self {
        Swift.min(range.upperBound, Swift.max(range.lowerBound, self))
    }
}
