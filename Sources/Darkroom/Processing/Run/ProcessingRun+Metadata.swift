import DarkroomImaging

/// What an answer carries besides its pixels: the metadata kept, the
/// resolution it states (Pro's `dpi`) and the colour profile it is
/// converted to and carries (Pro's `cp`).
extension ProcessingRun {
    /// `image` ready for the saver, and whether the saver strips metadata
    /// (off where the image keeps some itself).
    func preparedForSaving(_ image: VImage, as format: ImageFormat) throws(DarkroomError) -> (image: VImage, strip: Bool) {
        let output = options.output
        guard OutputOptions.dpiRange.contains(output.dpi) else { throw .invalidOption("dpi \(output.dpi) is outside \(OutputOptions.dpiRange)") }
        // Pro's `cp`: the pixels converted, the profile carried whatever
        // `scp` says; ignored where the format cannot carry it.
        let profile = output.colourProfile.flatMap { $0.applies(to: format) ? $0 : nil }
        let profiled = try profile.map { profile throws(DarkroomError) in
            try vips("converting to the \(profile.name) colour profile") { try image.iccTransformed(to: profile.vipsName) }
        } ?? image
        // Pro's `dpi`, in the formats that state one, stripped or not: a
        // stripping saver would drop it with the rest (libjpeg's JFIF
        // header), so the copy drops the rest itself.
        let statesDPI = output.dpi > 0 && OutputOptions.resolutionFormats.contains(format)
        // Read from the EXIF once, and handed to the copy that keeps it.
        let copyright = output.stripMetadata && output.keepCopyright ? profiled.copyright : nil
        let keepsProfile = !output.stripColourProfile || profile != nil
        let strip = output.stripMetadata && !keepsProfile && copyright == nil && !statesDPI
        let kept = strip ? profiled : try vips("choosing the metadata to keep") {
            try profiled.keepingMetadata(all: !output.stripMetadata, colourProfile: keepsProfile, copyright: copyright)
        }
        let stated = statesDPI ? try vips("setting the resolution") { try kept.withResolution(dpi: Double(output.dpi)) } : kept
        return (stated, strip)
    }
}

/// A colour profile an answer is converted to and carries (imgproxy Pro's
/// `color_profile`): libvips' built-in sRGB or CMYK, or an ICC file from
/// the server's folder of profiles.
public enum ColourProfile: Sendable, Hashable, Codable {
    case srgb
    case cmyk
    /// An ICC profile's file, checked to be in the server's folder.
    case file(path: String, name: String)

    /// The formats that carry a profile; CMYK only JPEG and TIFF.
    static let formats: Set<ImageFormat> = [.jpeg, .png, .webp, .avif, .heic, .tiff, .jxl]

    func applies(to format: ImageFormat) -> Bool {
        self == .cmyk ? format == .jpeg || format == .tiff : Self.formats.contains(format)
    }

    /// What libvips' ICC transform is given: a built-in name or a path.
    var vipsName: String {
        switch self {
        case .srgb: "srgb"
        case .cmyk: "cmyk"
        case .file(let path, _): path
        }
    }

    /// As the URL named it.
    public var name: String {
        switch self {
        case .srgb: "srgb"
        case .cmyk: "cmyk"
        case .file(_, let name): name
        }
    }
}
