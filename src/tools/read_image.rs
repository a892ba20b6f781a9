//! An image file made ready for a model: read whole, told apart by its magic bytes, checked
//! against the limits, base64-encoded. `read_file` uses it for an image path; the REPL's
//! `@shot.png`, a pasted path and `-p --image` use it to attach one to a prompt.
//!
//! Invariant: a file over `image::MAX_IMAGE_BYTES` is refused from its metadata, before a byte
//! of it is read, and then it is read with that cap, so a file that grows meanwhile costs no
//! more; nothing is resized. Whether the model accepts images is the caller's decision.

use crate::image::{Facts, MAX_IMAGE_BYTES};
use crate::msg::Image;
use std::io::Read;
use std::path::Path;

/// Why a file cannot be attached or shown as an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ImageError {
    /// Not one of PNG, JPEG, GIF, WebP by its bytes (`read_file` then reads it as text).
    NotAnImage,
    /// Over a limit; the text names it.
    TooBig(String),
    /// Missing, a directory, unreadable: the text says which.
    Unreadable(String),
}

impl ImageError {
    /// A sentence for the model or the person, naming `shown` (the path as given).
    pub(crate) fn message(&self, shown: &str) -> String {
        match self {
            ImageError::NotAnImage => format!("{shown} is not a PNG, JPEG, GIF or WebP image"),
            ImageError::TooBig(why) => format!("{shown}: {why}"),
            ImageError::Unreadable(why) => why.clone(),
        }
    }
}

/// True when the file at `path` is a regular file that starts like an image (a quick look at its
/// first bytes). Anything else is not opened: opening a FIFO would wait for a writer.
pub(crate) fn is_image_file(path: &Path) -> bool {
    if !std::fs::metadata(path).is_ok_and(|meta| meta.is_file()) {
        return false;
    }
    let mut head = [0u8; 12];
    let Ok(mut file) = std::fs::File::open(path) else { return false };
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(read) => filled += read,
        }
    }
    crate::image::sniff(&head[..filled]).is_some()
}

/// Reads the image at `path`; `source` is the name it goes by (`shot.png`, as the person or the
/// model wrote it).
pub(crate) fn load_image(path: &Path, source: &str) -> Result<(Image, Facts), ImageError> {
    let unreadable = |err: std::io::Error| match err.kind() {
        std::io::ErrorKind::NotFound => ImageError::Unreadable(format!("file not found: {source}")),
        _ => ImageError::Unreadable(format!("cannot read {source}: {err}")),
    };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if meta.is_dir() {
        return Err(ImageError::Unreadable(format!("{source} is a directory, not an image")));
    }
    if let Some(refusal) = crate::image::check_file_size(meta.len()) {
        // Sniffed first, so a big file that is no image is told as such.
        if !is_image_file(path) {
            return Err(ImageError::NotAnImage);
        }
        return Err(ImageError::TooBig(refusal));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_IMAGE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(unreadable)?;
    let facts = crate::image::inspect(&bytes).ok_or(ImageError::NotAnImage)?;
    if let Some(why) = crate::image::check_limits(&facts) {
        return Err(ImageError::TooBig(why));
    }
    let image = Image {
        media_type: facts.format.media_type().to_string(),
        data: crate::image::base64_encode(&bytes).into(),
        size_px: facts.size_px,
        source: source.to_string(),
    };
    Ok((image, facts))
}

#[cfg(test)]
#[path = "read_image_tests.rs"]
mod tests;
