public import Foundation

/// What photobook to make: plain values, so a request can be
/// stored, sent and compared.
public struct PhotobookRequest: Sendable, Hashable {
    public var photos: [Photo]
    public var page: PageSize = .a4
    /// Pixels per inch of the pages' images; it sets the PDF's page size.
    public var dpi: Double = 150
    /// `.fill`: crop each photo to fill the page (the seed's way);
    /// `.fit`: the whole photo on the page.
    public var fit: Resize.Mode = .fill
    /// White space around each photo, in millimetres.
    public var margin: Double = 0
    /// Applied to every page, such as `.sepia(intensity: 0.8)`.
    public var filter: ImageOperation?
    /// The photo's name under it.
    public var captions = false
    public var quality = 85
    /// Skip a photo that fails, with a note in the result; or fail the book.
    public var skipFailed = false
    public var priority: WorkPriority = .normal
    /// The limits each page's photo is prepared under (its bytes, pixels
    /// and processing time), as for any other image.
    public var limits: ImageLimits = .default

    public init(photos: [Photo]) {
        self.photos = photos
    }

    public struct Photo: Sendable, Hashable {
        public var name: String
        public var source: Source

        public enum Source: Sendable, Hashable {
            /// A local file.
            case file(String)
            /// Through the pipeline's caches and the network.
            case url(URL)
        }

        public init(name: String, source: Source) {
            self.name = name
            self.source = source
        }
    }

    public enum PageSize: Sendable, Hashable {
        case a4, letter
        /// A page of this many pixels (at the request's dpi).
        case pixels(width: Int, height: Int)

        /// Parses "A4", "Letter" or "WxH" (pixels).
        public init?(_ text: String) {
            switch text.lowercased() {
            case "a4": self = .a4
            case "letter": self = .letter
            default:
                let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ (16...20_000).contains($0) }) else { return nil }
                self = .pixels(width: parts[0], height: parts[1])
            }
        }

        /// The page in pixels at `dpi`.
        public func pixels(dpi: Double) -> (width: Int, height: Int) {
            switch self {
            case .a4: (Int((210 / 25.4 * dpi).rounded()), Int((297 / 25.4 * dpi).rounded()))
            case .letter: (Int((8.5 * dpi).rounded()), Int((11 * dpi).rounded()))
            case .pixels(let width, let height): (width, height)
            }
        }
    }
}

/// How a book is getting on.
public enum PhotobookProgress: Sendable, Hashable {
    /// Pages prepared so far, of all.
    case preparing(done: Int, total: Int)
    /// Pages written into the PDF so far.
    case writing(written: Int, total: Int)
    case done(PhotobookResult)
}

/// A finished book.
public struct PhotobookResult: Sendable, Hashable {
    public var path: String
    public var bytes: Int
    public var pages: Int
    /// The size of each page's JPEG, in page order.
    public var pageJPEGBytes: [Int]
    /// Photos left out, with why.
    public var skipped: [Skipped]

    public struct Skipped: Sendable, Hashable {
        public var name: String
        public var reason: String
    }
}
