public import Foundation

/// Sources on this machine: `local:///PATH` URLs, read from under one root
/// folder (imgproxy's local file system source); every other URL goes to
/// the loader underneath.
///
/// A path that leaves the root, by `..` or by a symbolic link, is refused
/// with the same answer as a file that does not exist, so that no answer
/// tells what exists outside the root. Files are read on the I/O threads,
/// never on the cooperative pool.
public final class LocalFileLoader: DataLoading {
    public static let scheme = "local"

    /// The folder `local:///` names, with its symbolic links resolved.
    public let root: URL
    private let maxBytes: Int
    private let io: BlockingExecutor
    private let fallback: any DataLoading

    public init(root: URL, maxBytes: Int = ImageLimits().maxSourceBytes, io: BlockingExecutor, fallback: any DataLoading) {
        self.root = root.standardizedFileURL.resolvingSymlinksInPath()
        self.maxBytes = maxBytes
        self.io = io
        self.fallback = fallback
    }

    public func load(_ request: DataRequest, progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> DataResponse {
        guard request.url.scheme?.lowercased() == Self.scheme else {
            return try await fallback.load(request, progress: progress)
        }
        let url = request.url.absoluteString
        let file = try path(of: request.url)
        let maxBytes = self.maxBytes
        let read: Result<(Data, etag: String), DarkroomError>
        do {
            read = try await io.run { Self.read(file, url: url, maxBytes: maxBytes) }
        } catch {
            throw DarkroomError(.networkFailure, "\(url) could not be read", underlying: "\(error)")
        }
        let (data, etag) = try read.get()
        if request.etag == etag { return .notModified }
        progress(data.count, data.count)
        guard !data.isEmpty else { throw DarkroomError(.emptyInput, "\(url) is empty") }
        guard case .image(let format) = ImageFormat.sniff(data) else {
            throw DarkroomError(.notAnImage, "\(url) is not an image in a format Darkroom reads")
        }
        return .fetched(SourceData(data: data, format: format, contentType: nil, etag: etag))
    }

    /// The file a `local:///` URL names, inside the root.
    func path(of url: URL) throws(DarkroomError) -> String {
        let relative = url.path.drop { $0 == "/" }
        guard !relative.isEmpty, url.host.map(\.isEmpty) ?? true else {
            throw DarkroomError(.invalidURL, "\(url.absoluteString) is not a local:///PATH URL")
        }
        let file = root.appendingPathComponent(String(relative)).standardizedFileURL.resolvingSymlinksInPath().path
        guard file.hasPrefix(root.path.hasSuffix("/") ? root.path : root.path + "/") else {
            throw Self.noSuchFile(url.absoluteString)
        }
        return file
    }

    /// The one answer for a path that names no file inside the root:
    /// missing, outside it, or not a regular file.
    static func noSuchFile(_ url: String) -> DarkroomError {
        DarkroomError(.httpStatus, "\(url) does not exist in the local source folder", statusCode: 404)
    }

    /// The file's bytes and validator (size and modification time), or
    /// what is wrong with it.
    private static func read(_ file: String, url: String, maxBytes: Int) -> Result<(Data, etag: String), DarkroomError> {
        var status = stat()
        guard stat(file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            return .failure(noSuchFile(url))
        }
        guard status.st_size <= maxBytes else {
            return .failure(DarkroomError(.tooManyBytes, "\(url) is \(status.st_size) bytes, over the limit of \(maxBytes) bytes"))
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(DarkroomError(.httpStatus, "\(url) cannot be read", statusCode: 403))
        }
        let etag = "\"\(status.st_size)-\(status.st_mtim.tv_sec)-\(status.st_mtim.tv_nsec)\""
        return .success((data, etag))
    }
}
