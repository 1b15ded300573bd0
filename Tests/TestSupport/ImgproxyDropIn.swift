/// An imgproxy deployment's settings, as its environment file sets them:
/// every one of them is one Darkroom honours, each set away from its
/// default so that reading it can be seen.
public enum ImgproxyDropIn {
    public static func environment(cookieBaseURL: String) -> [String: String] {
        [
            "IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_PATH_PREFIX": "/images", "IMGPROXY_ENABLE_CLIENT_HINTS": "true",
            "IMGPROXY_USE_LAST_MODIFIED": "false", "IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true", "IMGPROXY_TTL": "600",
            "IMGPROXY_PNG_INTERLACED": "true", "IMGPROXY_PNG_QUANTIZE": "true", "IMGPROXY_PNG_QUANTIZATION_COLORS": "16",
            "IMGPROXY_WEBP_EFFORT": "5", "IMGPROXY_WEBP_COMPRESSION": "near_lossless", "IMGPROXY_WEBP_SMART_SUBSAMPLE": "true",
            "IMGPROXY_AVIF_SPEED": "7", "IMGPROXY_JPEG_TRELLIS_QUANT": "true", "IMGPROXY_PRESERVE_HDR": "true",
            "IMGPROXY_USER_AGENT": "thumbs/%current_version", "IMGPROXY_MAX_REDIRECTS": "3",
            "IMGPROXY_COOKIE_PASSTHROUGH": "true", "IMGPROXY_COOKIE_BASE_URL": cookieBaseURL,
            "IMGPROXY_ALLOWED_SOURCES": "http://127.0.0.1:*/", "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            "IMGPROXY_ALLOW_ORIGIN": "*", "IMGPROXY_SANITIZE_SVG": "false", "IMGPROXY_ALWAYS_RASTERIZE_SVG": "true",
        ]
    }
}
