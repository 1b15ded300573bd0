import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Reading an image URL the first time it is seen: its signature, its
/// options, the format to answer in; what the parsed-URL cache keeps.
extension ImageRoutes {
    /// The URL after `/img` or `/info`, its signature checked first: a client
    /// without it learns nothing of the options and presets from the errors
    /// that parsing gives.
    static func verifiedURL(_ path: String, configuration: ServerConfiguration, hints: ClientHints? = nil) throws(RouteError) -> ImageURL {
        try verifySignature(path, configuration: configuration)
        var context = ImageURLOptions.Context(presets: configuration.presets, allowsSecurityOptions: configuration.allowSecurityOptions,
                                              allowedOptions: configuration.allowedOptions)
        context.allowsBypassCache = configuration.allowBypassCache
        context.returnsAttachment = configuration.returnAttachment
        context.enforcesThumbnail = configuration.enforceThumbnail
        context.maxPipelines = configuration.maxChainedPipelines
        context.clientHints = hints
        do {
            return try ImageURL(path: path, context: context, onlyPresets: configuration.onlyPresets, sources: configuration.sourceRules)
        } catch {
            // An encrypted source that does not decrypt reads as every other
            // failure to have one.
            if error.message == EncryptedSource.reason { throw RouteError(.notFound, EncryptedSource.reason) }
            // As imgproxy: a URL that does not parse names no image, 404.
            throw RouteError(.notFound, "bad image URL: \(error.message)")
        }
    }

    /// Throws unless one of the server's keys signed `path` (when signing
    /// is on).
    static func verifySignature(_ path: String, configuration: ServerConfiguration) throws(RouteError) {
        guard !configuration.signatures.isEmpty else { return }
        guard let (signature, signedPath) = ImageURL.split(path),
              configuration.signatures.contains(where: { $0.verify(signature, path: signedPath) })
        else { throw .badSignature }
    }

    /// Parses, verifies and negotiates a URL not seen before.
    /// - Parameter logger: the request's, so its warnings carry its id.
    func parse(_ path: String, accept: AcceptedFormats, hints: ClientHints?, logger: Logger) throws(RouteError) -> ParsedURLCache.Entry {
        let url = try Self.verifiedURL(path, configuration: configuration, hints: hints)
        var (format, negotiated): (ImageFormat?, Bool) = (nil, false)
        // A raw answer is the source's bytes, whatever is asked or accepted.
        let asked = url.options.format ?? url.requestedExtension
        // imgproxy Pro's `best`: the smallest of the formats the client takes.
        let best = !url.options.raw && (asked?.lowercased() == "best" || asked == nil && configuration.bestFormatByDefault)
        if best {
            negotiated = true
        } else if !url.options.raw {
            switch Self.format(asked: asked, accept: accept, negotiation: configuration.negotiation) {
            case .success(let answer): (format, negotiated) = answer
            case .failure(let error):
                // A format imgproxy knows but this server does not write is
                // imgproxy's 422; a name no one knows, a bad URL.
                let known = Self.unwritableFormats.contains(asked?.lowercased() ?? "")
                throw RouteError(known ? .unprocessableContent : .notFound, known ? error.message : "bad image URL: \(error.message)")
            }
        }
        // `wm` without an image of the server's, text or `wmu` is no step,
        // as imgproxy skips it.
        for warning in url.options.warnings { logger.warning("\(warning)", metadata: ["url": "\(path)"]) }
        let processing = { (options: ImageURLOptions) in
            options.processing(format: format, watermark: configuration.watermark, encoder: configuration.encoder,
                               watermarkURL: configuration.watermarkURL, watermarkOpacity: configuration.watermarkOpacity)
        }
        var options = processing(url.options)
        if let name = url.options.colourProfileName {
            options.output.colourProfile = try Self.colourProfile(named: name, profiles: configuration.colourProfiles)
        }
        // Chained pipelines: each one's steps in turn, on the one before's result.
        if let pipelines = url.pipelines, !url.options.raw {
            options.operations = pipelines.flatMap { processing($0).operations }
        }
        options.objectDetection = configuration.objectDetection
        if best {
            options.output.best = true
            options.output.bestComplexityThreshold = configuration.bestFormatComplexityThreshold
            options.output.bestMaxPixels = configuration.bestFormatMaxPixels
        }
        if format == nil, !url.options.raw {
            // The source's format only if the client takes it.
            options.output.acceptedFormats = accept.accepted
            options.output.preferredFormats = configuration.preferredFormats
        }
        // As imgproxy: an SVG source asked without a format is answered as SVG.
        let askedByName = asked.map { $0 != "auto" } ?? false
        options.output.keepsVectors = !askedByName && !configuration.alwaysRasterizeSVG
        if negotiated, let format, !format.animates, accept.accepted?.contains(.webp) ?? true {
            // AVIF chosen by Accept cannot animate here: an animated GIF or
            // WebP stays animated, as WebP, for a client that takes it.
            options.output.animationFormat = .webp
        }
        options.limits = url.options.limits(over: configuration.limits)
        var request = ImageRequest(source: .url(url.source), options: options, priority: .normal, admission: .unlessOverloaded)
        request.bypassesCache = url.options.bypassCache
        // As imgproxy: always named, after the source unless `fn` says; an
        // encrypted source's name is not shown.
        let named = url.sourceIsEncrypted ? ContentDisposition.hiddenSourceName : ContentDisposition.defaultName(for: url.source)
        let disposition = ContentDisposition(name: url.options.filename ?? named, attachment: url.options.returnAttachment)
        return .init(request: request, processedKey: request.processedKey, negotiated: negotiated,
                     varyByHints: configuration.clientHints, expires: url.options.expires,
                     disposition: disposition,
                     watermarkSources: Self.watermarkSources(of: url.pipelines ?? [url.options], server: configuration.watermarkURL),
                     sourceIsEncrypted: url.sourceIsEncrypted, fallbackSource: url.options.fallbackImageURL ?? configuration.fallbackImageURL,
                     customHeaders: configuration.customResponseHeaders + configuration.cacheTagsFormat.fields(url.options.cacheTags)
                        + canonicalLink(for: url),
                     debugHeaders: configuration.debugHeaders)
    }

    /// imgproxy's canonical link to an http(s) source, where the server
    /// sets it; none for an encrypted source, which no answer may show.
    func canonicalLink(for url: ImageURL) -> [PassedHeader] {
        guard configuration.canonicalHeader, !url.sourceIsEncrypted, ["http", "https"].contains(url.source.scheme?.lowercased() ?? "") else { return [] }
        return [PassedHeader(name: "Link", value: "<\(url.source.absoluteString)>; rel=\"canonical\"")]
    }

    /// libvips' built-in sRGB and CMYK, or one of the server's profiles.
    static func colourProfile(named name: String, profiles: [String: String]) throws(RouteError) -> ColourProfile {
        switch name.lowercased() {
        case "srgb": return .srgb
        case "cmyk": return .cmyk
        default:
            guard let path = profiles[name] else {
                throw RouteError(.notFound, "bad image URL: option 'cp': no colour profile '\(name.prefix(60))' here (srgb, cmyk\(profiles.isEmpty ? "" : ", or one of the server's \(Set(profiles.values).count)"))")
            }
            return .file(path: path, name: name)
        }
    }

    /// The watermarks to fetch for these pipelines' `wm` steps: each one's
    /// `wmu`, else the server's URL, where no text stands in; each once.
    static func watermarkSources(of pipelines: [ImageURLOptions], server: URL?) -> [URL] {
        var urls: [URL] = []
        for options in pipelines where options.watermark != nil && options.watermarkText == nil {
            if let url = options.watermarkURL ?? server, !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    /// Formats imgproxy names that Darkroom reads, or knows, but does not write.
    static let unwritableFormats: Set<String> = ["pdf"]

    /// The output format: the one asked for; or, for none or `auto`, AVIF
    /// or WebP when the client names it, else nil (the source's, if the
    /// client takes it).
    static func format(asked: String?, accept: AcceptedFormats,
                       negotiation: FormatNegotiation = FormatNegotiation()) -> Result<(ImageFormat?, negotiated: Bool), ImageURLError> {
        if let asked, asked != "auto" {
            // SVG is answered for SVG sources only (the run refuses others).
            guard let format = ImageFormat(name: asked), format.canEncode || format == .svg else {
                return .failure(.init("cannot write '\(asked)' images (jpg, png, webp, avif, gif, tiff, jxl, heic, bmp, ico, or auto)"))
            }
            // An enforced format answers whatever the URL names, as imgproxy's ENFORCE_*.
            if format != .svg, let enforced = negotiation.enforced(for: accept) { return .success((enforced, true)) }
            return .success((format, false))
        }
        return .success((negotiation.automatic(for: accept), true))
    }
}
