public import Darkroom
public import Foundation

/// imgproxy Pro's options for the crop's shape, the resampling kernel, the
/// source's checksum, the answer's DPI, an SVG's style and a URL's own
/// fallback image.
extension ImageURLOptions {
    static var proRules: OptionRules<ImageURLOptions> {
        var table = OptionRules<ImageURLOptions>(route: .processing)
        func add(_ option: URLOption, readAs names: [String]? = nil, rule: @escaping Rule) { table.add(option, readAs: names, rule: rule) }
        add(URLOption(["crop_aspect_ratio", "crop_ar", "car"], "%aspect_ratio:%enlarge", ArgumentRange("aspect ratio, or 0", CropAspect.ratioRange), cost: .geometry, pro: true, test: "ProOptionsServingTests.theCropIsBroughtToTheAspectRatio")) { o, a throws(ImageURLError) in
            // A ratio of 0 corrects nothing.
            try a.need(1...2)
            let ratio = try a.number(0, "aspect ratio", 0...CropAspect.ratioRange.upperBound) ?? 0
            guard ratio == 0 || CropAspect.ratioRange.contains(ratio) else {
                throw .init("option '\(a.name)': an aspect ratio is 0 (none) or from \(CropAspect.ratioRange.lowerBound) up")
            }
            o.cropAspect = ratio == 0 ? nil : CropAspect(ratio: ratio, enlarge: a.bool(1) ?? false)
        }
        add(URLOption(["resizing_algorithm", "ra"], "%algorithm", cost: .geometry, pro: true, test: "ProOptionsServingTests.theResizingAlgorithmChoosesTheKernel")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.resizingAlgorithm = try a.choice(0, "resizing algorithm", Resize.Algorithm.self)
        }
        add(URLOption(["hashsum", "hs"], "%hashsum_type:%hashsum", cost: .none, pro: true, test: "ProOptionsServingTests.theSourcesHashsumIsChecked")) { o, a throws(ImageURLError) in o.sourceHashsum = try a.hashsum() }
        add(URLOption(["dpi"], "%dpi", ArgumentRange("dpi", OutputOptions.dpiRange), cost: .none, pro: true, test: "ProOptionsServingTests.theAnswerStatesTheDPIAsked")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.dpi = try a.whole(0, "dpi", OutputOptions.dpiRange) ?? 0
        }
        add(URLOption(["style", "st"], "%style", cost: .child, pro: true, test: "ProOptionsServingTests.anSVGsStyleIsPutInAndSanitised")) { o, a throws(ImageURLError) in
            // Base64url-encoded CSS; empty clears it.
            try a.need(0...1)
            o.style = try a.encodedText(0, "CSS")
        }
        add(URLOption(["fallback_image_url", "fiu"], "%url", cost: .secondImage, pro: true, test: "ProOptionsServingTests.theURLsFallbackStandsInForAMissingSource")) { o, a throws(ImageURLError) in
            // A base64url-encoded URL, fetched as sources are; empty clears it.
            try a.need(0...1)
            o.fallbackImageURL = try a.encodedSourceURL(0)
        }
        add(URLOption(["color_profile", "cp", "icc"], "%profile", cost: .pixels, pro: true, test: "ColourProfileServingTests.theAnswerCarriesTheProfileAsked")) { o, a throws(ImageURLError) in
            // srgb, cmyk, or a profile's file name (percent-encoded; .icc or
            // .icm may be left out); empty clears it.
            try a.need(0...1)
            guard let text = a.text(0) else {
                o.colourProfileName = nil
                return
            }
            let name = text.removingPercentEncoding ?? text
            guard name.utf8.count <= 255, !name.contains("/"), !name.hasPrefix("."), !name.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                throw .init("option '\(a.name)': '\(text.prefix(40))' is not a colour profile's name (srgb, cmyk, or a file name)")
            }
            o.colourProfileName = name
        }
        add(URLOption(["cache_tags", "ct"], "%tag1:%tag2:...:%tagN", cost: .none, pro: true, test: "CacheOptionsServingTests.cacheTagsAreInTheAnswersFields")) { o, a throws(ImageURLError) in
            // Empty clears them. A field's value: visible ASCII, no commas.
            o.cacheTags = []
            for tag in a.values where !tag.isEmpty {
                guard tag.utf8.count <= 128, tag.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }) else {
                    throw .init("option '\(a.name)': a tag is 1 to 128 visible ASCII characters without ',', not '\(tag.prefix(40))'")
                }
                if !o.cacheTags.contains(tag) { o.cacheTags.append(tag) }
            }
            guard o.cacheTags.count <= 64 else { throw .init("option '\(a.name)' takes at most 64 tags") }
        }
        return table
    }
}

extension ImageURLOptions.Arguments {
    /// Base64url-encoded UTF-8 text at `index` (`what` names it in the
    /// error); nil when empty.
    func encodedText(_ index: Int, _ what: String) throws(ImageURLError) -> String? {
        guard let encoded = text(index) else { return nil }
        guard let data = Data(base64URLEncoded: encoded), let text = String(data: data, encoding: .utf8) else {
            throw .init("option '\(name)': '\(encoded.prefix(40))' is not base64url-encoded UTF-8 \(what)")
        }
        return text
    }

    /// A base64url-encoded http, https, local or s3 URL at `index` (a
    /// watermark's or a fallback's, fetched as sources are); nil when empty.
    func encodedSourceURL(_ index: Int) throws(ImageURLError) -> URL? {
        guard let encoded = text(index) else { return nil }
        guard let data = Data(base64URLEncoded: encoded), let text = String(data: data, encoding: .utf8),
              let url = URL(string: text), ImageURLOptions.takesScheme(of: url, relative: true)
        else {
            throw .init("option '\(name)': '\(encoded.prefix(40))' is not a base64url-encoded http, https, local or s3 URL")
        }
        return url
    }

    /// imgproxy Pro's `hashsum:TYPE:HEX`: nil for `none`.
    func hashsum() throws(ImageURLError) -> ProcessingOptions.SourceHashsum? {
        try need(1...2)
        guard values[0] != "none" else { return nil }
        guard let kind = try choice(0, "hashsum type", Hashsum.Kind.self) else { throw .init("option '\(name)' needs a hashsum type") }
        let digits = Hashsum.hex(of: Data(), kind).count
        guard let hex = text(1)?.lowercased(), hex.count == digits, hex.allSatisfy(\.isHexDigit) else {
            throw .init("option '\(name)': the \(kind.rawValue) hashsum is \(digits) hex digits")
        }
        return .init(kind: kind, hex: hex)
    }
}
