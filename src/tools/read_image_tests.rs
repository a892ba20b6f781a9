//! Unit tests of `read_image.rs`: an image loaded and described, and the files it refuses.

use super::*;
use crate::test_dir::TempDir;

const PNG: &[u8] = include_bytes!("../../fixtures/images/red-2x3.png");

#[test]
fn an_image_is_loaded_by_its_bytes_whatever_its_name() {
    let dir = TempDir::new("image-load");
    dir.write("shot.dat", PNG);
    let (image, facts) = load_image(&dir.path().join("shot.dat"), "shot.dat").unwrap();
    assert_eq!(image.media_type, "image/png");
    assert_eq!(image.size_px, Some((2, 3)));
    assert_eq!(&*image.data, crate::image::base64_encode(PNG));
    assert_eq!(facts.describe(), "PNG 2x3, 73 B");
    assert!(is_image_file(&dir.path().join("shot.dat")));
}

#[test]
fn a_text_a_missing_file_a_directory_and_a_big_image_are_refused_with_why() {
    let dir = TempDir::new("image-refuse");
    dir.write("a.png", "not an image");
    let load = |name: &str| load_image(&dir.path().join(name), name).map(|_| ()).map_err(|err| err.message(name));
    assert_eq!(load("a.png"), Err("a.png is not a PNG, JPEG, GIF or WebP image".to_string()));
    assert_eq!(load("none.png"), Err("file not found: none.png".to_string()));
    std::fs::create_dir(dir.path().join("d")).unwrap();
    assert_eq!(load("d"), Err("d is a directory, not an image".to_string()));
    let mut big = PNG.to_vec();
    big.resize(crate::image::MAX_IMAGE_BYTES as usize + 1, 0);
    dir.write("big.png", big);
    let refusal = load("big.png").unwrap_err();
    assert!(
        refusal.starts_with("big.png: the image is 3932161 bytes, over the limit of 3932160 bytes (3.75 MB)"),
        "{refusal}"
    );
    assert!(!is_image_file(&dir.path().join("a.png")));
}
