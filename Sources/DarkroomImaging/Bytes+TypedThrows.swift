package import Foundation

/// `withUnsafeBytes` rethrows untyped errors; this carries a typed error
/// through it unchanged. Named apart from the standard library's
/// `withUnsafeBytes(of:)`, which it would otherwise shadow.
package func withRawBytes<Bytes: ContiguousBytes, T, E: Error>(
    of bytes: Bytes,
    _ body: (UnsafeRawBufferPointer) throws(E) -> T
) throws(E) -> T {
    let result: Result<T, E> = bytes.withUnsafeBytes { raw in
        do throws(E) {
            return .success(try body(raw))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
