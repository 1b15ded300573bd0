/// The one error type of the Darkroom library.
///
/// Every error has a ``kind`` to branch on and a ``reason`` to show a person.
/// New kinds can be added without breaking callers, so match on ``kind``
/// with a `default` case:
///
/// ```swift
/// do { _ = try await processor.process(data, options: options) }
/// catch where error.kind == .tooManyPixels { ... }
/// ```
public struct DarkroomError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a category.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// Every kind's name, read back by ``init(named:)`` (a remembered
        /// failure stores its kind by name): a kind that is not here does
        /// not compile, so none can be left out.
        private enum Name: String, CaseIterable {
            case emptyInput, notAnImage, tooManyBytes, tooManyPixels, tooManyScans, tooMuchMemory, tooComplex
            case corruptImage, invalidOption, cannotEncode, processingFailed, cancelled, dependencyFailed
            case workFailed, invalidURL, httpStatus, networkFailure, timedOut, tooManyRedirects, invalidList
            case forbiddenSource, processingTimedOut, overloaded, notCached
        }

        private let name: Name
        private init(_ name: Name) { self.name = name }
        public var description: String { name.rawValue }

        /// Every kind there is, from the names.
        static var all: [Kind] { Name.allCases.map(Kind.init) }

        /// The kind with this name, as ``description`` gives it.
        public init?(named name: String) {
            guard let known = Name(rawValue: name) else { return nil }
            self.name = known
        }

        /// The input had no bytes.
        public static let emptyInput = Kind(.emptyInput)
        /// The input is not an image in a format Darkroom reads.
        public static let notAnImage = Kind(.notAnImage)
        /// The input is larger, in bytes, than the limit.
        public static let tooManyBytes = Kind(.tooManyBytes)
        /// The image's header claims more pixels than the limit.
        public static let tooManyPixels = Kind(.tooManyPixels)
        /// A multi-scan JPEG has more scans than ``ImageLimits/maxJPEGScans``.
        public static let tooManyScans = Kind(.tooManyScans)
        /// Decoding the image would hold more memory than ``ImageLimits/maxDecodeMemory``.
        public static let tooMuchMemory = Kind(.tooMuchMemory)
        /// The image's structure asks for more work than a limit allows:
        /// a HEIF grid with more tiles to decode than ``ImageLimits/maxHEIFTiles``.
        public static let tooComplex = Kind(.tooComplex)
        /// The image is damaged or cut short; decoding failed.
        public static let corruptImage = Kind(.corruptImage)
        /// An option or argument was not valid.
        public static let invalidOption = Kind(.invalidOption)
        /// The output format cannot be written.
        public static let cannotEncode = Kind(.cannotEncode)
        /// An image operation failed for another reason.
        public static let processingFailed = Kind(.processingFailed)
        /// The work was cancelled; nothing was published.
        public static let cancelled = Kind(.cancelled)
        /// Work did not run because work it depended on failed or was cancelled.
        public static let dependencyFailed = Kind(.dependencyFailed)
        /// Queued work threw an error that was not a ``DarkroomError``.
        public static let workFailed = Kind(.workFailed)
        /// The URL is not one Darkroom fetches (not http or https, no host).
        public static let invalidURL = Kind(.invalidURL)
        /// The origin answered with a status other than 2xx (see ``DarkroomError/statusCode``).
        public static let httpStatus = Kind(.httpStatus)
        /// The connection failed or was cut.
        public static let networkFailure = Kind(.networkFailure)
        public static let timedOut = Kind(.timedOut)
        public static let tooManyRedirects = Kind(.tooManyRedirects)
        /// A photo list could not be read, or does not have a shape Darkroom knows.
        public static let invalidList = Kind(.invalidList)
        /// The source is not allowed: outside the allow-list, or on a private address.
        public static let forbiddenSource = Kind(.forbiddenSource)
        /// Processing took longer than ``ImageLimits/maxProcessingTime`` and was stopped.
        public static let processingTimedOut = Kind(.processingTimedOut)
        /// Too much work is waiting to take more (``ImageRequest/Admission/unlessOverloaded``); try again shortly.
        public static let overloaded = Kind(.overloaded)
        /// No cache has the result, and the request asked for cached results only.
        public static let notCached = Kind(.notCached)
    }

    public let kind: Kind
    /// A sentence for a person, saying what was wrong.
    public let reason: String
    /// The error underneath, such as libvips' own, when there is one.
    public let underlying: String?
    /// The origin's HTTP status, for ``Kind/httpStatus``.
    public let statusCode: Int?
    /// Worth retrying as it is (a dropped connection).
    let transient: Bool

    /// An error of `kind`, such as a ``DataLoading`` of one's own throws:
    /// `DarkroomError(.httpStatus, "the origin answered 404", statusCode: 404)`.
    public init(_ kind: Kind, _ reason: String, underlying: String? = nil, statusCode: Int? = nil) {
        self.init(kind, reason, underlying: underlying, statusCode: statusCode, transient: false)
    }

    init(_ kind: Kind, _ reason: String, underlying: String? = nil, statusCode: Int? = nil, transient: Bool) {
        self.kind = kind
        self.reason = reason
        self.underlying = underlying
        self.statusCode = statusCode
        self.transient = transient
    }

    public var description: String {
        guard let underlying, !reason.contains(underlying) else { return reason }
        return "\(reason) (\(underlying))"
    }

    static func invalidOption(_ reason: String) -> DarkroomError {
        DarkroomError(.invalidOption, reason)
    }

    /// Work cancelled before it finished.
    public static let cancelled = DarkroomError(.cancelled, "cancelled")

    /// An error thrown by queued work, as the work's: its own, `cancelled`,
    /// or `workFailed`.
    static func describing(_ error: any Error) -> DarkroomError {
        if let error = error as? DarkroomError { return error }
        if error is CancellationError { return .cancelled }
        return DarkroomError(.workFailed, "the work failed", underlying: "\(error)")
    }
}
