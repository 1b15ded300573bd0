/// How much the decoder can shrink while it decodes.
///
/// Decoding a 2560 px JPEG at 1/4 size skips most of the inverse DCT and
/// three quarters of the memory; the resize after it then only has a small
/// step left. The shrunk image is never smaller than the target, so the
/// resize after it is still a downscale and the result's size is unchanged.
enum ShrinkOnLoad {
    struct Plan: Equatable {
        var factor: Int
    }

    static func plan(operations: [ImageOperation], format: ImageFormat, width: Int, height: Int) -> Plan {
        guard format == .jpeg || format == .webp,
              case .resize(let resize)? = operations.first
        else { return Plan(factor: 1) }
        let scales = resize.scales(fromWidth: width, height: height)
        // The gentler of the two scales bounds the shrink, so both sides
        // stay at least as large as the target.
        let scale = max(scales.horizontal, scales.vertical)
        guard scale > 0, scale < 1 else { return Plan(factor: 1) }
        let limit = 1 / scale
        let factor = [8, 4, 2].first { Double($0) <= limit } ?? 1
        return Plan(factor: factor)
    }
}
