/// What a ``Resize`` makes of a source of a given size, by imgproxy's
/// arithmetic (its `calcScale`, `calcSizes` and `limitScale`), so that a
/// URL gives the sizes imgproxy gives, pixel for pixel.
public struct ResizeGeometry: Sendable, Equatable {
    /// The scale of each side.
    public var horizontalScale: Double
    public var verticalScale: Double
    /// The device pixel ratio the sizes are taken at: the asked one, lowered
    /// where the source is too small to reach it without enlarging, and by
    /// the result limit.
    public var dprScale: Double
    /// The size after scaling, before any cut.
    public var scaledWidth: Int
    public var scaledHeight: Int
    /// The asked size at ``dprScale`` and the zoom; 0 where not asked.
    public var targetWidth: Int
    public var targetHeight: Int
    /// What the scaled image is cut to, by the gravity; 0, or more than the
    /// image, leaves that side whole.
    public var cropWidth: Int
    public var cropHeight: Int
    /// The canvas of `extend_aspect_ratio`; 0 when there is none.
    public var aspectWidth = 0
    public var aspectHeight = 0

    /// The size after the cut.
    public var resultWidth: Int { Self.minNonZero(cropWidth, scaledWidth) }
    public var resultHeight: Int { Self.minNonZero(cropHeight, scaledHeight) }

    /// `value` times `scale`, rounded half away from zero; 0 for 0.
    static func scale(_ value: Int, _ scale: Double) -> Int {
        value == 0 ? 0 : Int((Double(value) * scale).rounded())
    }

    static func minNonZero(_ a: Int, _ b: Int) -> Int {
        a == 0 ? b : b == 0 ? a : min(a, b)
    }
}

extension Resize {
    /// The geometry for a `sourceWidth` x `sourceHeight` source. `frame` is
    /// what follows the resize (its extend and padding count towards the
    /// result limit); `maxResultDimension` scales the whole result down to
    /// fit it on its longer side (0: no limit).
    public func geometry(sourceWidth: Int, sourceHeight: Int, frame: Frame? = nil, maxResultDimension: Int = 0) -> ResizeGeometry {
        let srcW = Double(sourceWidth), srcH = Double(sourceHeight)
        let askedW = width ?? 0, askedH = height ?? 0
        let dstW = askedW == 0 ? srcW : Double(askedW), dstH = askedH == 0 ? srcH : Double(askedH)
        var wShrink = dstW == srcW ? 1 : srcW / dstW
        var hShrink = dstH == srcH ? 1 : srcH / dstH
        if wShrink != 1 || hShrink != 1 {
            var mode = self.mode
            if mode == .auto {
                // Fill when source and box have the same orientation.
                mode = (srcW - srcH >= 0) == (dstW - dstH >= 0) ? .fill : .fit
            }
            if askedW == 0 && mode != .force {
                wShrink = hShrink
            } else if askedH == 0 && mode != .force {
                hShrink = wShrink
            } else if mode == .fit {
                wShrink = max(wShrink, hShrink)
                hShrink = wShrink
            } else if mode == .fill || mode == .fillDown {
                wShrink = min(wShrink, hShrink)
                hShrink = wShrink
            }
        }
        wShrink /= zoomX ?? 1
        hShrink /= zoomY ?? 1

        var dprScale = dpr ?? 1
        if !enlarge {
            let minShrink = min(wShrink, hShrink)
            if minShrink < 1 {
                wShrink /= minShrink
                hShrink /= minShrink
                // The asked size cannot be reached: a ratio below 1 would
                // move further from it, so it is raised; not with extend,
                // whose composition stays the same at every ratio.
                if frame?.extend == nil { dprScale /= minShrink }
            }
            // No more than the ratio that reaches the source's own size.
            dprScale = min(dprScale, min(wShrink, hShrink))
        }
        if let minWidth, minWidth > 0, srcW / Double(minWidth) < wShrink {
            let minShrink = srcW / Double(minWidth)
            hShrink /= wShrink / minShrink
            wShrink = minShrink
        }
        if let minHeight, minHeight > 0, srcH / Double(minHeight) < hShrink {
            let minShrink = srcH / Double(minHeight)
            wShrink /= hShrink / minShrink
            hShrink = minShrink
        }
        wShrink /= dprScale
        hShrink /= dprScale
        // Never below one pixel.
        wShrink = min(wShrink, srcW)
        hShrink = min(hShrink, srcH)

        var geometry = ResizeGeometry(horizontalScale: 1 / wShrink, verticalScale: 1 / hShrink, dprScale: dprScale,
                                      scaledWidth: 0, scaledHeight: 0, targetWidth: 0, targetHeight: 0, cropWidth: 0, cropHeight: 0)
        sizes(&geometry, sourceWidth: sourceWidth, sourceHeight: sourceHeight, frame: frame)
        limit(&geometry, to: maxResultDimension, sourceWidth: sourceWidth, sourceHeight: sourceHeight, frame: frame)
        return geometry
    }

    /// The scaled, asked, cut and aspect-ratio sizes for the scales.
    private func sizes(_ g: inout ResizeGeometry, sourceWidth: Int, sourceHeight: Int, frame: Frame?) {
        g.targetWidth = ResizeGeometry.scale(width ?? 0, g.dprScale * (zoomX ?? 1))
        g.targetHeight = ResizeGeometry.scale(height ?? 0, g.dprScale * (zoomY ?? 1))
        g.scaledWidth = max(1, ResizeGeometry.scale(sourceWidth, g.horizontalScale))
        g.scaledHeight = max(1, ResizeGeometry.scale(sourceHeight, g.verticalScale))
        (g.cropWidth, g.cropHeight) = (g.targetWidth, g.targetHeight)
        if mode == .fillDown && !enlarge {
            // Smaller than the box: the largest cut of the box's shape.
            let diffW = Double(g.targetWidth) / Double(g.scaledWidth), diffH = Double(g.targetHeight) / Double(g.scaledHeight)
            if diffW > diffH && diffW > 1 {
                g.cropHeight = ResizeGeometry.scale(g.scaledWidth, Double(g.targetHeight) / Double(g.targetWidth))
                g.cropWidth = g.scaledWidth
            } else if diffH > diffW && diffH > 1 {
                g.cropWidth = ResizeGeometry.scale(g.scaledHeight, Double(g.targetWidth) / Double(g.targetHeight))
                g.cropHeight = g.scaledHeight
            }
        }
        (g.aspectWidth, g.aspectHeight) = (0, 0)
        if frame?.extendAspectRatio != nil, g.targetWidth > 0, g.targetHeight > 0 {
            let outW = g.resultWidth, outH = g.resultHeight
            let diffW = Double(g.targetWidth) / Double(outW), diffH = Double(g.targetHeight) / Double(outH)
            if diffH > diffW {
                (g.aspectWidth, g.aspectHeight) = (outW, ResizeGeometry.scale(outW, Double(g.targetHeight) / Double(g.targetWidth)))
            } else if diffW > diffH {
                (g.aspectWidth, g.aspectHeight) = (ResizeGeometry.scale(outH, Double(g.targetWidth) / Double(g.targetHeight)), outH)
            }
        }
    }

    /// The whole result, canvas and padding included, scaled down to fit
    /// `maxDimension` on its longer side.
    private func limit(_ g: inout ResizeGeometry, to maxDimension: Int, sourceWidth: Int, sourceHeight: Int, frame: Frame?) {
        guard maxDimension > 0 else { return }
        var outW = g.resultWidth, outH = g.resultHeight
        if frame?.extend != nil {
            (outW, outH) = (max(outW, g.targetWidth), max(outH, g.targetHeight))
        } else if frame?.extendAspectRatio != nil {
            (outW, outH) = (max(outW, g.aspectWidth), max(outH, g.aspectHeight))
        }
        if let padding = frame?.padding {
            outW += Gravity.scaleToEven(padding.left, g.dprScale) + Gravity.scaleToEven(padding.right, g.dprScale)
            outH += Gravity.scaleToEven(padding.top, g.dprScale) + Gravity.scaleToEven(padding.bottom, g.dprScale)
        }
        guard outW > maxDimension || outH > maxDimension else { return }
        let down = Double(maxDimension) / Double(max(outW, outH))
        g.horizontalScale = max(g.horizontalScale * down, 1 / Double(sourceWidth))
        g.verticalScale = max(g.verticalScale * down, 1 / Double(sourceHeight))
        g.dprScale *= down
        sizes(&g, sourceWidth: sourceWidth, sourceHeight: sourceHeight, frame: frame)
    }
}
