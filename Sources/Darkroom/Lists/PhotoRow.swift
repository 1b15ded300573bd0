/// Where a row is in its life.
public enum PhotoRowState: Sendable, Hashable {
    /// Not loaded yet (or its work was cancelled before anything arrived).
    case new
    /// The original is here, unfiltered.
    case downloaded
    /// The filtered image is here.
    case filtered
    /// It failed, for this reason; shown as "Failed to load".
    case failed(String)

    public var name: String {
        switch self {
        case .new: "new"
        case .downloaded: "downloaded"
        case .filtered: "filtered"
        case .failed: "failed"
        }
    }
}

/// One row of a photo list as the controller holds it: the list's entry and
/// its state.
public struct PhotoRow: Sendable, Hashable, Identifiable {
    public var entry: PhotoList.Entry
    public var state: PhotoRowState

    public var id: Int { entry.id }
}

/// A change of one row, delivered in order from the controller.
public struct PhotoRowEvent: Sendable {
    public var row: Int
    public var state: PhotoRowState
    /// The original, with ``PhotoRowState/downloaded``.
    public var original: SourceData?
    /// The processed image, with ``PhotoRowState/filtered``.
    public var image: ImageResponse?
}
