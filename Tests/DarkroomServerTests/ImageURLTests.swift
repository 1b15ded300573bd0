import Darkroom
@testable import DarkroomServer
import Foundation
import Testing

@Suite struct ImageURLTests {
    func parse(_ path: String, presets: [String: String] = [:], onlyPresets: Bool = false) throws -> ImageURL {
        try ImageURL(path: path, presets: presets, onlyPresets: onlyPresets)
    }

    func operations(_ path: String) throws -> [ImageOperation] {
        try parse(path).options.processing(format: nil).operations
    }

    /// The resize every URL makes: it carries the device pixel ratio and
    /// scales a result over the limit down.
    let asItIs = ImageOperation.resize(Resize(width: nil, height: nil))

    @Test func imgproxysDocumentedSignatureExample() throws {
        let signer = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(signer.sign(path) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(signer.verify("oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: path))
        #expect(!signer.verify("oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH9", path: path))
        #expect(!signer.verify("unsafe", path: path))
        // The same URL parses: base64 split by slashes, with an extension.
        let url = try parse("/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8" + path)
        #expect(url.signedPath == path)
        #expect(url.source.absoluteString == "http://example.com/images/curiosity.jpg")
        #expect(url.requestedExtension == "png")
        #expect(url.options.resizingType == .fill && url.options.width == 300 && url.options.height == 400)
        #expect(url.options.gravity == .smart)
    }

    @Test func plainSourcesWithAndWithoutExtension() throws {
        let a = try parse("/_/w:100/plain/https://example.com/a/b.jpg@webp")
        #expect(a.source.absoluteString == "https://example.com/a/b.jpg")
        #expect(a.requestedExtension == "webp")
        let b = try parse("/unsafe/plain/http://example.com/pic%20one.jpg%3Fsize%3Dbig")
        #expect(b.source.absoluteString == "http://example.com/pic%20one.jpg?size=big")
        #expect(b.requestedExtension == nil)
        let c = try parse("/insecure/plain/https://user@example.com/x.png@png")
        #expect(c.source.absoluteString == "https://user@example.com/x.png")
    }

    @Test func base64SourcesWithoutExtension() throws {
        let encoded = Data("https://example.com/photo.jpg".utf8).base64URLEncodedString()
        let url = try parse("/_/rs:fit:10:10/\(encoded)")
        #expect(url.source.absoluteString == "https://example.com/photo.jpg")
        #expect(url.requestedExtension == nil)
    }

    @Test(arguments: [
        ("/_/rs:fit:300:200/plain/http://x.org/a.jpg", Resize(width: 300, height: 200, mode: .fit)),
        ("/_/resize:fill:300:200:1/plain/http://x.org/a.jpg", Resize(width: 300, height: 200, mode: .fill, enlarge: true)),
        ("/_/rs:fill-down:300:200/plain/http://x.org/a.jpg", Resize(width: 300, height: 200, mode: .fillDown)),
        ("/_/rs:force:300:0/plain/http://x.org/a.jpg", Resize(width: 300, height: nil, mode: .force)),
        ("/_/rs:auto:300:200/plain/http://x.org/a.jpg", Resize(width: 300, height: 200, mode: .auto)),
        ("/_/s:0:150/plain/http://x.org/a.jpg", Resize(width: nil, height: 150)),
        ("/_/size:150:150:t/plain/http://x.org/a.jpg", Resize(width: 150, height: 150, enlarge: true)),
        ("/_/rt:fill/w:90/h:60/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill)),
        ("/_/resizing_type:fill/width:90/height:60/el:1/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill, enlarge: true)),
        ("/_/rs:fill:90:60/g:no/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill, gravity: .north)),
        ("/_/rs:fill:90:60/gravity:so/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill, gravity: .south)),
        ("/_/rs:fill:90:60/g:ea/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill, gravity: .east)),
        ("/_/rs:fill:90:60/g:we/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill, gravity: .west)),
        ("/_/rs:fill:90:60/g:ce/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill, gravity: .centre)),
        ("/_/rs:fill:90:60/g:sm/plain/http://x.org/a.jpg", Resize(width: 90, height: 60, mode: .fill, gravity: .smart)),
        ("/_/rs:::400/enlarge:true/plain/http://x.org/a.jpg", Resize(width: nil, height: 400, enlarge: true)),
    ])
    func resizeOptions(path: String, resize: Resize) throws {
        #expect(try operations(path) == [.resize(resize)])
    }

    @Test func everyOtherOption() throws {
        let url = try parse("/_/c:100:80:no/q:70/f:webp/bl:2.5/sh:0.7/ar:0/cb:v2/sepia:0.6/grayscale/plain/http://x.org/a.jpg")
        let processing = url.options.processing(format: .webp)
        #expect(processing.operations == [.cropPlaced(width: 100, height: 80, gravity: .north), asItIs, .grayscale, .sepia(intensity: 0.6), .blur(sigma: 2.5), .sharpen(sigma: 0.7)])
        #expect(processing.output.quality == 70)
        #expect(processing.autoRotate == false)
        #expect(url.options.format == "webp")
        #expect(url.options.cachebuster == "v2")
        let long = try parse("/_/crop:50:50/quality:90/format:png/blur:1/sharpen:1/auto_rotate:1/cachebuster:x/sepia/plain/http://x.org/a.jpg")
        #expect(long.options.processing(format: nil).operations == [.cropPlaced(width: 50, height: 50, gravity: .centre), asItIs, .sepia(intensity: 0.8), .blur(sigma: 1), .sharpen(sigma: 1)])
        #expect(try parse("/_/ext:avif/plain/http://x.org/a.jpg").options.format == "avif")
    }

    @Test func rotateAndFlipComeBeforeSizes() throws {
        let url = try parse("/_/w:100/rot:90/fl:1:0/plain/http://x.org/a.jpg")
        #expect(url.options.processing(format: nil).operations
            == [.rotate(degrees: 90), .flip(horizontal: true, vertical: false), .resize(Resize(width: 100, height: nil))])
        #expect(try parse("/_/rotate:-90/plain/http://x.org/a.jpg").options.rotate == 270)
        #expect(try parse("/_/rot:720/flip:0:1/plain/http://x.org/a.jpg").options.processing(format: nil).operations
            == [.flip(horizontal: false, vertical: true), asItIs])
        for bad in ["rot:45", "rot:abc", "rot:1e300", "rot:90:1", "fl:1:0:1"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func dprPaddingBackgroundAndPixelate() throws {
        let url = try parse("/_/rs:fit:100:50/dpr:2/pd:10:20/bg:ff8000/pix:4/plain/http://x.org/a.jpg")
        let orange = try #require(RGBColour(hex: "ff8000"))
        #expect(url.options.processing(format: nil).operations == [
            .resize(Resize(width: 100, height: 50, mode: .fit, dpr: 2)),
            .pixelate(size: 4),
            .frame(Frame(padding: .init(top: 10, right: 20, bottom: 10, left: 20), background: orange)),
            .background(orange),
        ], "padding in CSS pixels: the resize's device pixel ratio scales it")
        // CSS's shorthand: right falls back to top, bottom to top, left to right.
        #expect(try parse("/_/pd:5/plain/http://x.org/a.jpg").options.padding == .init(top: 5, right: 5, bottom: 5, left: 5))
        #expect(try parse("/_/pd:1:2:3/plain/http://x.org/a.jpg").options.padding == .init(top: 1, right: 2, bottom: 3, left: 2))
        #expect(try parse("/_/pd::4/plain/http://x.org/a.jpg").options.padding == .init(top: 0, right: 4, bottom: 0, left: 4))
        #expect(try parse("/_/bg:10:20:30/plain/http://x.org/a.jpg").options.background == RGBColour(red: 10, green: 20, blue: 30))
        #expect(try parse("/_/bg:10:20:30/bg:/plain/http://x.org/a.jpg").options.background == nil, "no colour turns it off")
        // imgproxy's default qualities.
        let output = try parse("/_/w:10/plain/http://x.org/a.jpg").options.processing(format: nil).output
        #expect(output.quality(for: .jpeg) == 80 && output.quality(for: .webp) == 79 && output.quality(for: .avif) == 63)
        for bad in ["dpr:0", "dpr:-1", "dpr:nan", "dpr:1e300", "dpr:101", "pd:-1", "pd:1:2:3:4:5", "bg:zzzzzz", "bg:1:2",
                    "bg:256:0:0", "bg:-1:0:0", "pix:-2", "pix:1e9"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func minimumsAndZoom() throws {
        #expect(try operations("/_/rs:fit:100:100/mw:300/plain/http://x.org/a.jpg") == [.resize(Resize(width: 100, height: 100, minWidth: 300))])
        #expect(try operations("/_/min-height:50/dpr:2/plain/http://x.org/a.jpg") == [.resize(Resize(width: nil, height: nil, minHeight: 50, dpr: 2))],
                "a minimum alone resizes, at the device pixel ratio")
        #expect(try operations("/_/w:100/z:2/plain/http://x.org/a.jpg") == [.resize(Resize(width: 100, height: nil, zoomX: 2, zoomY: 2))])
        #expect(try operations("/_/zoom:0.5:2/plain/http://x.org/a.jpg") == [.resize(Resize(width: nil, height: nil, zoomX: 0.5, zoomY: 2))])
        #expect(try operations("/_/z:1/plain/http://x.org/a.jpg") == [asItIs], "zoom 1 is no zoom")
        for bad in ["z:0", "z:-1", "z:nan", "z:1e300", "z:101", "z:1:0", "z:1:2:3", "z:", "mw:-1", "mw:1e9", "mh:x", "mw:1:2"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func formatQuality() throws {
        let url = try parse("/_/q:90/fq:jpg:70:webp:60/plain/http://x.org/a.jpg")
        #expect(url.options.formatQuality == [.jpeg: 70, .webp: 60])
        let output = url.options.processing(format: nil).output
        // As imgproxy: a URL's quality is over every format's; without it, the
        // URL's format quality, then the server's, then the server's quality.
        #expect(output.quality(for: .jpeg) == 90 && output.quality(for: .webp) == 90 && output.quality(for: .avif) == 90)
        let perFormat = try parse("/_/fq:jpg:70:webp:60/plain/http://x.org/a.jpg").options.processing(format: nil).output
        #expect(perFormat.quality(for: .jpeg) == 70 && perFormat.quality(for: .webp) == 60 && perFormat.quality(for: .avif) == 63)
        // The key counts only what can apply: a JPEG answer ignores WebP's quality.
        let jpeg = try parse("/_/fq:jpg:70:webp:60/plain/http://x.org/a.jpg").options.processing(format: .jpeg).identifier
        #expect(jpeg == (try parse("/_/fq:jpg:70/plain/http://x.org/a.jpg")).options.processing(format: .jpeg).identifier)
        #expect(jpeg != (try parse("/_/fq:jpg:71/plain/http://x.org/a.jpg")).options.processing(format: .jpeg).identifier)
        for bad in ["fq:jpg", "fq:jpg:101", "fq:pdf:50", "fq:jpg:-1", "fq:jpg:x", "fq:jpg:1e300"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func extendAndCornerGravities() throws {
        #expect(try operations("/_/rs:fit:100:80:0:1/plain/http://x.org/a.jpg") == [
            .resize(Resize(width: 100, height: 80)),
            .frame(Frame(extend: .centre)),
        ])
        // imgproxy's resize takes the extend's gravity and offsets too (8 arguments), size 7.
        #expect(try operations("/_/rs:fit:100:80:0:1:soea:3:4/plain/http://x.org/a.jpg").last == .frame(Frame(extend: Gravity(.southEast, x: 3, y: 4))))
        #expect(try operations("/_/s:100:80:0:1:fp:0.2:0.8/plain/http://x.org/a.jpg").last == .frame(Frame(extend: .focusPoint(x: 0.2, y: 0.8))))
        #expect(try operations("/_/extend_ar:1:no/s:10:20/plain/http://x.org/a.jpg").last == .frame(Frame(extendAspectRatio: .north)))
        let orange = try #require(RGBColour(hex: "ff8000"))
        #expect(try operations("/_/w:100/h:80/ex:1:soea/bg:ff8000/sepia/plain/http://x.org/a.jpg") == [
            .resize(Resize(width: 100, height: 80)),
            .sepia(intensity: 0.8),
            .frame(Frame(extend: .southEast, background: orange)),
            .background(orange),
        ], "after the filters, which leave the canvas as it is")
        #expect(try operations("/_/s:100:100/exar:1/plain/http://x.org/a.jpg").last == .frame(Frame(extendAspectRatio: .centre)))
        #expect(try parse("/_/g:nowe/plain/http://x.org/a.jpg").options.gravity == .northWest)
        for bad in ["ex:1:zz", "ex:1:ce:1:2:3", "rs:fit:1:1:0:1:ce:1:2:3", "s:1:1:0:1:ce:1:2:3"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func skipProcessing() throws {
        #expect(try parse("/_/skp:jpg:webp/plain/http://x.org/a.jpg").options.processing(format: nil).output.skipProcessing == [.jpeg, .webp])
        #expect(try parse("/_/skp:jpg/skp:/plain/http://x.org/a.jpg").options.skipProcessing?.isEmpty == true, "an empty list clears it")
        #expect(throws: ImageURLError.self) { try parse("/_/skp:pdf/plain/http://x.org/a.jpg") }
        let raw = try parse("/_/raw:1/rs:fill:10:10/sepia/plain/http://x.org/a.jpg").options.processing(format: .webp)
        #expect(raw.operations.isEmpty && raw.output.format == nil && raw.output.skipProcessing == Set(ImageFormat.allCases))
    }

    @Test func enforceThumbnailAndJPEGXL() throws {
        #expect(try parse("/_/eth:1/plain/http://x.org/a.avif").options.processing(format: nil).enforceThumbnail)
        #expect(try !parse("/_/enforce_thumbnail:0/plain/http://x.org/a.avif").options.processing(format: nil).enforceThumbnail)
        #expect(try !parse("/_/eth:maybe/plain/http://x.org/a.avif").options.enforceThumbnail, "not a boolean: false, as imgproxy")
        #expect(try parse("/_/f:jxl/plain/http://x.org/a.jpg").options.format == "jxl")
    }

    @Test func watermarkText() throws {
        // "Darkroom" in base64url; it stands in for the server's image.
        let options = try parse("/_/wm:0.5:soea/wmt:RGFya3Jvb20/plain/http://x.org/a.jpg").options
        #expect(options.watermarkText == "Darkroom")
        guard case .watermark(let mark)? = options.processing(format: nil).operations.last else {
            Issue.record("no watermark step")
            return
        }
        #expect(mark.content == .text("Darkroom") && mark.opacity == 0.5 && mark.gravity == .southEast)
        #expect(try parse("/_/wmt:RGFya3Jvb20/wmt:/plain/http://x.org/a.jpg").options.watermarkText == nil, "empty clears it")
        let long = Data(String(repeating: "x", count: 1100).utf8).base64EncodedString()
        for bad in ["wmt:***", "wmt:\(long)", "wmt:AAc", "wmt:a:b"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func pagesAsPro() throws {
        let options = try parse("/_/pg:2/pgs:3/da:1/plain/http://x.org/a.gif").options.processing(format: .png)
        #expect(options.pages == PageSelection(first: 2, count: 3, disableAnimation: true))
        let long = try parse("/_/page:1/pages:2/disable_animation:t/plain/http://x.org/a.gif").options.processing(format: .png)
        #expect(long.pages == PageSelection(first: 1, count: 2, disableAnimation: true))
        #expect(try parse("/_/plain/http://x.org/a.gif").options.processing(format: .png).pages == PageSelection())
        for bad in ["pg:-1", "pgs:0", "pgs:101", "pg:x", "da:1:2"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func autoqualityAsPro() throws {
        let server = Autoquality(method: .dssim, target: 0.02, minQuality: 70, maxQuality: 80, allowedError: 0.001)
        var defaults = ImageURLOptions.EncoderDefaults()
        defaults.autoquality = server
        func chosen(_ path: String) throws -> Autoquality? {
            try parse("/_/\(path)/plain/http://x.org/a.jpg").options.processing(format: .jpeg, encoder: defaults).output.autoquality
        }
        #expect(try chosen("q:0") == server, "the server's when the URL says nothing")
        #expect(try chosen("aq:none") == nil)
        #expect(try chosen("aq:dssim:0.01") == Autoquality(method: .dssim, target: 0.01, minQuality: 70, maxQuality: 80, allowedError: 0.001))
        #expect(try chosen("autoquality:size:10240:10:60") == Autoquality(method: .size, target: 10240, minQuality: 10, maxQuality: 60))
        #expect(try chosen("aq:ml::60:90:0.002") == Autoquality(method: .dssim, target: 0.02, minQuality: 60, maxQuality: 90, allowedError: 0.002))
        for bad in ["aq:fast", "aq:dssim:2", "aq:size:0", "aq:dssim:0.02:0", "aq:dssim:0.02:70:101", "aq:dssim:0.02:70:80:5", "aq"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func watermarkSizeTurnAndShadowAsPro() throws {
        let options = try parse("/_/wm:1:ce/wmt:RGFya3Jvb20/wms:120:0/wmr:-30/wmsh:2.5/plain/http://x.org/a.jpg").options
        guard case .watermark(let mark)? = options.processing(format: nil).operations.last else {
            Issue.record("no watermark step")
            return
        }
        #expect((mark.fitWidth, mark.fitHeight, mark.rotation, mark.shadowSigma) == (120, 0, -30, 2.5))
        let long = try parse("/_/watermark_size:10:20/watermark_rotate:90/watermark_shadow:1/wm_rot:45/plain/http://x.org/a.jpg").options
        #expect((long.watermarkWidth, long.watermarkHeight, long.watermarkRotation, long.watermarkShadow) == (10, 20, 45, 1))
        for bad in ["wms:-1:0", "wms:1:2:3", "wmr:361", "wmr:x", "wmsh:101", "wmsh:-1"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func watermarkURL() throws {
        // local:///photos/Dune.jpg in base64url, keyed by its URL before any fetch.
        let options = try parse("/_/wm:1:ce/wmu:bG9jYWw6Ly8vcGhvdG9zL0R1bmUuanBn/plain/http://x.org/a.jpg").options
        #expect(options.watermarkURL?.absoluteString == "local:///photos/Dune.jpg")
        guard case .watermark(let mark)? = options.processing(format: nil).operations.last, case .image(let image) = mark.content else {
            Issue.record("no watermark step with an image")
            return
        }
        #expect(image.key.hasPrefix("url-") && image.data.isEmpty)
        #expect(try parse("/_/wmu:bG9jYWw6Ly8vcGhvdG9zL0R1bmUuanBn/wmu:/plain/http://x.org/a.jpg").options.watermarkURL == nil, "empty clears it")
        for bad in ["wmu:ZmlsZTovLy9ldGMvcGFzc3dk", "wmu:***", "wmu:a:b"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func maxBytes() throws {
        #expect(try parse("/_/mb:30000/plain/http://x.org/a.jpg").options.processing(format: .jpeg).output.maxBytes == 30000)
        #expect(try parse("/_/max_bytes:0/plain/http://x.org/a.jpg").options.processing(format: .jpeg).output.maxBytes == nil)
        for bad in ["mb:-1", "mb:x", "mb:1e300", "mb:2000000000", "mb:", "mb:1:2"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func fileNameAndAttachment() throws {
        let url = try parse("/_/fn:my%20holiday/att:1/plain/http://x.org/a.jpg")
        #expect(url.options.filename == "my holiday" && url.options.returnAttachment)
        let encoded = Data("фото \"1\"".utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(try parse("/_/fn:\(encoded):1/plain/http://x.org/a.jpg").options.filename == "фото \"1\"")
        for bad in ["fn:", "fn:a%2Fb", "fn:%0A", "fn:!!!:1", "fn:\(String(repeating: "a", count: 256))"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
        // Plain ASCII in filename; anything else also in filename* (RFC 6266).
        #expect(ContentDisposition(name: "photo", attachment: false).value(for: .webp) == "inline; filename=\"photo.webp\"")
        #expect(ContentDisposition(name: "a\\b", attachment: false).value(for: .png) == "inline; filename=\"a_b.png\"; filename*=UTF-8''a%5Cb.png")
        #expect(ContentDisposition(name: "фото \"1\"", attachment: true).value(for: .jpeg)
                == "attachment; filename=\"____ _1_.jpg\"; filename*=UTF-8''%D1%84%D0%BE%D1%82%D0%BE%20%221%22.jpg")
        #expect(ContentDisposition.defaultName(for: URL(string: "http://x.org/a/Storm.jpg")!) == "Storm")
        #expect(ContentDisposition.defaultName(for: URL(string: "http://x.org/")!) == "image")
    }

    @Test func expiresAndPresets() throws {
        let future = Int(Date().timeIntervalSince1970) + 3600, past = Int(Date().timeIntervalSince1970) - 10
        _ = try parse("/_/exp:\(future)/w:10/plain/http://x.org/a.jpg")
        #expect(throws: ImageURLError.self) { try parse("/_/exp:\(past)/w:10/plain/http://x.org/a.jpg") }
        let presets = ["thumb": "rs:fill:120:120/sepia:0.8", "small": "w:50"]
        let url = try parse("/_/pr:thumb/plain/http://x.org/a.jpg", presets: presets)
        #expect(url.options.processing(format: nil).operations == [.resize(Resize(width: 120, height: 120, mode: .fill)), .sepia(intensity: 0.8)])
        #expect(try parse("/_/preset:small/plain/http://x.org/a.jpg", presets: presets).options.width == 50)
        #expect(throws: ImageURLError.self) { try parse("/_/pr:nope/plain/http://x.org/a.jpg", presets: presets) }
    }

    @Test(arguments: [
        ("/_/vignette:2/plain/http://x.org/a.jpg", "unknown option 'vignette'"),
        ("/_/rs:stretch:1:1/plain/http://x.org/a.jpg", "unknown resizing type 'stretch'"),
        ("/_/w:abc/plain/http://x.org/a.jpg", "width 'abc'"),
        ("/_/q:101/plain/http://x.org/a.jpg", "quality"),
        ("/_/g:noso/plain/http://x.org/a.jpg", "unsupported gravity 'noso'"),
        ("/_/bl:x/plain/http://x.org/a.jpg", "sigma 'x'"),
        ("/_/sepia:3/plain/http://x.org/a.jpg", "intensity '3'"),
        ("/_/c:-5:10/plain/http://x.org/a.jpg", "width '-5'"),
        ("/_/w:10", "no source"),
        ("/_/w:10/plain/", "empty"),
        ("/_/w:10/!!!notbase64!!!", "not a base64url-encoded URL"),
        ("", "no signature"),
    ])
    func badURLsSayWhatIsWrong(path: String, words: String) {
        #expect {
            try parse(path)
        } throws: { error in
            (error as? ImageURLError)?.message.contains(words) == true
        }
    }

    @Test func gravityOffsetsFocusPointsAndCropSides() throws {
        #expect(try parse("/_/g:ea:10:5/plain/http://x.org/a.jpg").options.gravity == Gravity(.east, x: 10, y: 5))
        #expect(try parse("/_/g:fp:0.3:0.7/plain/http://x.org/a.jpg").options.gravity == .focusPoint(x: 0.3, y: 0.7))
        #expect(throws: ImageURLError.self, "imgproxy's focus point takes both coordinates") { try parse("/_/g:fp/plain/http://x.org/a.jpg") }
        // Offsets are CSS pixels, which the resize scales by its ratio; below 1 they are fractions of the side.
        let fill = try operations("/_/rs:fill:100:100/g:so:0:4/dpr:2/plain/http://x.org/a.jpg")
        #expect(fill == [.resize(Resize(width: 100, height: 100, mode: .fill, gravity: Gravity(.south, x: 0, y: 4), dpr: 2))])
        #expect(try parse("/_/g:no:0:0.1/plain/http://x.org/a.jpg").options.gravity == Gravity(.north, x: 0, y: 0.1))
        #expect(try operations("/_/c:0.5:0.25:fp:0.1:0.2/plain/http://x.org/a.jpg")
                == [.cropPlaced(width: 0.5, height: 0.25, gravity: .focusPoint(x: 0.1, y: 0.2)), asItIs])
        #expect(try operations("/_/c:300/plain/http://x.org/a.jpg") == [.cropPlaced(width: 300, height: 0, gravity: .centre), asItIs])
        #expect(try operations("/_/c:0:0/plain/http://x.org/a.jpg") == [asItIs])
        #expect(try parse("/_/ex:1:soea:5:6/plain/http://x.org/a.jpg").options.extend == Gravity(.southEast, x: 5, y: 6))
        #expect(try parse("/_/ex:1:fp:0.1:0.9/plain/http://x.org/a.jpg").options.extend == .focusPoint(x: 0.1, y: 0.9), "imgproxy takes fp in extend")
        for bad in ["g:fp:1.5:0", "g:fp:nan:0", "g:sm:1:1", "g:ea:1e300:0", "g:ce:1:2:3", "c:-1:10", "c:nan:1", "ex:1:sm"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func metadataOptions() throws {
        let defaults = try parse("/_/plain/http://x.org/a.jpg").options.processing(format: nil).output
        #expect(defaults.stripMetadata && defaults.keepCopyright && defaults.stripColourProfile)
        let off = try parse("/_/sm:0/kcr:f/strip_color_profile:false/plain/http://x.org/a.jpg").options.processing(format: nil).output
        #expect(!off.stripMetadata && !off.keepCopyright && !off.stripColourProfile)
        // As imgproxy: what is not a boolean is false, with a warning.
        let lenient = try parse("/_/sm:maybe/plain/http://x.org/a.jpg")
        #expect(!lenient.options.stripMetadata && lenient.options.warnings.contains { $0.contains("maybe") })
    }

    @Test func watermarkComesLast() throws {
        let image = WatermarkImage(data: Data([1, 2, 3]))
        let url = try parse("/_/wm:0.5:soea:10:5:0.2/bg:ffffff/dpr:2/plain/http://x.org/a.jpg")
        let steps = url.options.processing(format: nil, watermark: image).operations
        #expect(steps.last == .watermark(Watermark(image: image, opacity: 0.5, gravity: Gravity(.southEast, x: 10, y: 5), scale: 0.2)),
                "offsets in CSS pixels, which the resize's ratio scales")
        #expect(!url.options.processing(format: nil).operations.contains { if case .watermark = $0 { true } else { false } })
        let tiled = try parse("/_/wm:1:re:30/plain/http://x.org/a.jpg").options.watermark
        #expect(tiled?.replicate == true && tiled?.gravity.x == 30 && tiled?.gravity.y == 0)
        #expect(try parse("/_/wm:0/plain/http://x.org/a.jpg").options.watermark == nil)
        for bad in ["wm:2", "wm:nan", "wm:1:sm", "wm:1:fp", "wm:1:ce:0:0:-1", "wm:1:up", "wm"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func trimComesFirst() throws {
        let white = RGBColour(red: 255, green: 255, blue: 255)!
        #expect(try operations("/_/rot:90/t:10:ffffff:1/plain/http://x.org/a.jpg")
                == [.trim(threshold: 10, colour: white, equalHorizontal: true, equalVertical: false), .rotate(degrees: 90), asItIs])
        #expect(try operations("/_/trim:5.5/plain/http://x.org/a.jpg") == [.trim(threshold: 5.5, colour: nil, equalHorizontal: false, equalVertical: false), asItIs])
        #expect(try operations("/_/t:0/plain/http://x.org/a.jpg").first == .trim(threshold: 0, colour: nil, equalHorizontal: false, equalVertical: false),
                "a threshold of 0 trims the exact colour, as imgproxy")
        for bad in ["t:300", "t:nan", "t:10:zz", "t"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
    }

    @Test func presetsAsImgproxyDoesThem() throws {
        let presets = ["default": "q:60/w:100", "thumb": "rs:fill:120:120", "a": "pr:b/w:10", "b": "pr:a/h:20"]
        // The default preset first, then the URL's own options over it.
        let plain = try parse("/_/plain/http://x.org/a.jpg", presets: presets)
        #expect(plain.options.quality == 60 && plain.options.width == 100)
        let own = try parse("/_/w:300/plain/http://x.org/a.jpg", presets: presets)
        #expect(own.options.quality == 60 && own.options.width == 300)
        // A loop is skipped where it closes: a -> b -> (a skipped), h then w.
        let loop = try parse("/_/pr:a/plain/http://x.org/a.jpg", presets: presets)
        #expect(loop.options.width == 10 && loop.options.height == 20)
        // Presets-only mode: one segment of names, nothing else.
        let only = try parse("/_/thumb:a/plain/http://x.org/a.jpg", presets: presets, onlyPresets: true)
        #expect(only.options.resizingType == .fill && only.options.width == 10 && only.options.height == 20)
        #expect(throws: ImageURLError.self) { try parse("/_/w:10/plain/http://x.org/a.jpg", presets: presets, onlyPresets: true) }
        #expect(throws: ImageURLError.self) { try parse("/_/thumb/w:10/plain/http://x.org/a.jpg", presets: presets, onlyPresets: true) }
        // Checked at start: each preset as a URL would use it.
        try ImageURLOptions.check(presets: presets)
        #expect(throws: ImageURLError.self) { try ImageURLOptions.check(presets: ["x": "vignette:2"]) }
        #expect(throws: ImageURLError.self) { try ImageURLOptions.check(presets: ["x": "pr:missing"]) }
        #expect(throws: ImageURLError.self) { try ImageURLOptions.check(presets: ["x:y": "w:10"]) }
    }

    @Test func urlRepairsAndRefusals() throws {
        // Escaped colons in options, and a scheme that lost a slash.
        let url = try parse("/_/rs%3Afill%3A10%3A20/plain/http:/x.org/a.jpg@png")
        #expect(url.options.resizingType == .fill && url.options.width == 10 && url.options.height == 20)
        #expect(url.source.absoluteString == "http://x.org/a.jpg")
        #expect(url.requestedExtension == "png")
        #expect(try parse("/_/plain/https:/x.org/a.jpg").source.absoluteString == "https://x.org/a.jpg")
        #expect(try parse("/_/plain/local:///a.jpg").source.absoluteString == "local:///a.jpg")
        #expect(try parse("/_/plain/http://x.org/a%40b.jpg@png").source.absoluteString == "http://x.org/a@b.jpg")
        #expect(throws: ImageURLError.self) { try parse("/_/plain/http://x.org/a.jpg@png@webp") }
        #expect(throws: ImageURLError.self) { try parse("/_/plain/http://x.org/a%zz.jpg") }
    }

    @Test func truncatedSignaturesAndTheSignedPart() throws {
        let full = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
        let short = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F", size: 8)
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        // The first 8 bytes of the same digest: 11 characters of base64url.
        #expect(short.sign(path) == "oKfUtW34Dvo")
        #expect(short.verify("oKfUtW34Dvo", path: path) && !short.verify(full.sign(path), path: path))
        #expect(!full.verify("oKfUtW34Dvo", path: path))
        #expect(throws: (any Error).self) { try URLSignature(hexKey: "00", hexSalt: "", size: 33) }
        // The split reads nothing but the first segment.
        let split = try #require(ImageURL.split("/sig/vignette:2/anything"))
        #expect(split.signature == "sig" && split.signedPath == "/vignette:2/anything")
        #expect(ImageURL.split("/sig") == nil && ImageURL.split("//x") == nil)
    }

    @Test func formatNegotiation() {
        func format(_ asked: String?, _ accept: String?) -> String {
            switch ImageRoutes.format(asked: asked, accept: AcceptedFormats(accept)) {
            case .success(let (format, negotiated)): return "\(format?.rawValue ?? "source")\(negotiated ? "+vary" : "")"
            case .failure: return "error"
            }
        }
        #expect(format(nil, "image/avif,image/webp,*/*") == "avif+vary")
        #expect(format("auto", "image/webp,*/*") == "webp+vary")
        #expect(format(nil, "*/*") == "source+vary")
        #expect(format(nil, nil) == "source+vary")
        #expect(format("png", "image/avif") == "png")
        #expect(format("jpg", nil) == "jpeg")
        #expect(format("gif", nil) == "gif" && format("tiff", "image/webp") == "tiff")
        #expect(format("bmp", nil) == "bmp" && format("ico", nil) == "ico" && format("heic", "image/avif") == "heic")
        #expect(format("pdf", nil) == "error")
    }

    /// imgproxy Pro's colour options: their grammar, defaults and ranges.
    @Test func colourOptionsAsImgproxyProWritesThem() throws {
        func steps(_ options: String) throws -> [ImageOperation] {
            Array(try parse("/_/\(options)/plain/http://x.org/a.jpg").options.processing(format: .png).operations.dropFirst())
        }
        #expect(try steps("a:10:1.5:0.5") == [.adjust(brightness: 10, contrast: 1.5, saturation: 0.5)])
        #expect(try steps("a::2") == [.adjust(brightness: 0, contrast: 2, saturation: 1)], "left out: the defaults")
        #expect(try steps("br:-20/co:1.2/sa:0") == [.adjust(brightness: -20, contrast: 1.2, saturation: 0)])
        #expect(try steps("br:0/co:1/sa:1").isEmpty, "the defaults are no step")
        let black = RGBColour(red: 0, green: 0, blue: 0)!
        #expect(try steps("mc:0.5") == [.duotone(intensity: 0.5, shadows: black, highlights: RGBColour(hex: "b3b3b3")!)])
        #expect(try steps("mc:1:ff0000") == [.duotone(intensity: 1, shadows: black, highlights: RGBColour(hex: "ff0000")!)])
        #expect(try steps("dt:1") == [.duotone(intensity: 1, shadows: black, highlights: .white)])
        #expect(try steps("dt:0.3:102030:f0e0d0") == [.duotone(intensity: 0.3, shadows: RGBColour(hex: "102030")!, highlights: RGBColour(hex: "f0e0d0")!)])
        #expect(try steps("col:0.5:f00:1") == [.colorize(opacity: 0.5, colour: RGBColour(hex: "ff0000")!, keepAlpha: true)])
        #expect(try steps("col:0").isEmpty && steps("mc:0").isEmpty && steps("dt:0:000:fff").isEmpty)
        #expect(try steps("bg:ff0000/bga:0.5") == [.backgroundWithAlpha(RGBColour(hex: "ff0000")!, alpha: 0.5)])
        #expect(try steps("bg:ff0000/bga:1") == [.background(RGBColour(hex: "ff0000")!)])
        let blurred = try parse("/_/ba:5:0.1:0.2:0.3:0.4:0:0:1:0.1/rs:fit:10:10/plain/http://x.org/a.jpg").options.processing(format: .png).operations
        #expect(blurred.first == .blurAreas(sigma: 5, areas: [BlurArea(left: 0.1, top: 0.2, width: 0.3, height: 0.4), BlurArea(left: 0, top: 0, width: 1, height: 0.1)]),
                "first, on the upright source")
        #expect(try steps("gr:0.8:ff0000:left:0.2:0.9") == [.gradient(opacity: 0.8, colour: RGBColour(hex: "ff0000")!, angle: 90, start: 0.2, stop: 0.9)])
        #expect(try steps("gr:1") == [.gradient(opacity: 1, colour: RGBColour(red: 0, green: 0, blue: 0)!, angle: 0, start: 0, stop: 1)])
        #expect(try steps("gr:1:fff:45") == [.gradient(opacity: 1, colour: .white, angle: 45, start: 0, stop: 1)])
        // Unsharp masking: off unless asked, as imgproxy's open-source edition; right after the resize.
        #expect(try steps("ush:auto") == [.unsharpMasking(onDownscale: true, weight: 1, divider: 24)])
        #expect(try steps("ush:always:2:12") == [.unsharpMasking(onDownscale: false, weight: 2, divider: 12)])
        #expect(try steps("ush:none").isEmpty)
        for bad in ["br:256", "br:1.5", "co:-1", "sa:x", "a:1:2:3:4", "mc:2", "dt:0.5:12345", "col:1.5", "col:0.5:nothex",
                    "gr:1:000:sideways", "gr:1:000:down:0.6:0.4", "ush:sometimes", "ush:auto:0", "ush:auto:1:-3",
                    "bga:2", "ba:5:0.1:0.2", "ba:5:0.1:0.2:0.3:1.4", "ba:101:0:0:1:1"] {
            #expect(throws: ImageURLError.self, "\(bad)") { try parse("/_/\(bad)/plain/http://x.org/a.jpg") }
        }
        // Each option changes the cache key.
        #expect(try parse("/_/sa:0.5/plain/http://x.org/a.jpg").options.processing(format: .png).identifier
                != parse("/_/sa:0.6/plain/http://x.org/a.jpg").options.processing(format: .png).identifier)
    }

    /// imgproxy Pro's encrypted sources, with its documentation's own
    /// example: the key, the URL and what it encrypts to.
    @Test func encryptedSourcesAsImgproxysDocumentedExample() throws {
        let hex = "1eb5b0e971ad7f45324c1bb15c947cb207c43152fa5c6c7f35c4f36e0c18e0f1"
        var rules = SourceRules()
        rules.encryptionKey = URLSignature.bytes(hex: hex)
        let encrypted = "p5VjorNdhs7mRRw8gA9TWoRlGci3l1kuzqN43UQlRaRIQ0qtBKW3qFABIsx-ZRz_cVc8iVTYbhsNsxNBL1BHaQ"
        func parse(_ path: String, _ rules: SourceRules) throws -> ImageURL {
            try ImageURL(path: path, context: ImageURLOptions.Context(), sources: rules)
        }
        let url = try parse("/unsafe/rs:fit:300:300/enc/\(encrypted)", rules)
        #expect(url.source.absoluteString == "http://example.com/images/curiosity.jpg")
        let withExtension = try parse("/unsafe/rs:fit:300:300/enc/\(encrypted).webp", rules)
        #expect(withExtension.source == url.source && withExtension.requestedExtension == "webp")
        // Without the key, with another key, cut short, or a byte changed: one sentence for all.
        let noKey = #expect(throws: ImageURLError.self) { try parse("/_/enc/\(encrypted)", SourceRules()) }
        #expect(noKey?.message.contains("source-url-encryption-key") == true)
        var other = rules
        other.encryptionKey = [UInt8](repeating: 7, count: 32)
        var tampered = Array(encrypted)
        tampered[30] = tampered[30] == "A" ? "B" : "A"
        for (path, key) in [("/_/enc/\(encrypted)", other), ("/_/enc/\(encrypted.prefix(40))", rules), ("/_/enc/\(String(tampered))", rules),
                            ("/_/enc/not*base64", rules)] {
            let error = #expect(throws: ImageURLError.self, "\(path)") { try parse(path, key) }
            #expect(error?.message == EncryptedSource.reason, "\(String(describing: error))")
        }
    }

    /// The URL holds a step's numbers to the ranges the run holds them to
    /// (StepRanges): the upper bound is read, just past it refused.
    @Test func stepNumbersAreHeldToTheRunsRanges() throws {
        #expect(try parse("/_/pix:\(StepRanges.pixelateSize.upperBound)/plain/http://example.com/a.jpg").options.pixelate == 10_000)
        for past in ["pix:10001", "bl:100.5", "sh:10.5", "sepia:1.5", "br:256", "co:100.5", "sa:100.5", "mc:1.5", "t:256"] {
            #expect(throws: (any Error).self, "\(past)") { try parse("/_/\(past)/plain/http://example.com/a.jpg") }
        }
    }
}
