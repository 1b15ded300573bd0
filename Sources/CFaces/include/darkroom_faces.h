#ifndef DARKROOM_FACES_H
#define DARKROOM_FACES_H

// Faces in an 8-bit grey image, by dlib's frontal face detector (HOG
// features and linear filters for the face seen from the front and turned
// to either side), whose model is built into the library: nothing is read
// from disk or the network.

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int left;
    int top;
    int width;
    int height;
    // The detector's margin: above 0 is a face; about 1 and more is sure.
    double score;
} darkroom_face;

// Finds faces of about 80 x 80 pixels and larger in `grey` (`width` x
// `height`, rows packed), keeping those scoring above `threshold` and at
// most `capacity` of them (the highest first). Returns how many were
// written, or -1 when the detector failed (its message in `error`, of
// `error_size` bytes).
int darkroom_detect_faces(const unsigned char *grey, int width, int height, double threshold,
                          darkroom_face *faces, int capacity, char *error, int error_size);

#ifdef __cplusplus
}
#endif

#endif
