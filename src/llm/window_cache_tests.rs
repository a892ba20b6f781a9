//! Unit tests of `window_cache.rs`: freshness, replacing, forgetting, the file round trip.

use super::*;
use crate::test_dir::TempDir;

fn entry(base_url: &str, model: &str, window: Option<u64>, checked_at: u64) -> Entry {
    Entry {
        base_url: base_url.to_string(),
        model: model.to_string(),
        window,
        endpoint: window.map(|_| "GET /props".to_string()),
        note: None,
        checked_at,
        warned: false,
        vision: None,
        vision_endpoint: None,
        vision_asked: true,
    }
}

#[test]
fn an_entry_is_fresh_for_a_week_and_per_endpoint_and_model() {
    let dir = TempDir::new("window-cache-fresh");
    let mut cache = WindowCache::load(dir.path());
    cache.record(entry("http://a/v1", "m", Some(4096), 1000));
    assert_eq!(cache.fresh("http://a/v1", "m", 1000).and_then(|entry| entry.window), Some(4096));
    assert!(cache.fresh("http://a/v1", "m", 1000 + MAX_AGE_S - 1).is_some());
    assert!(cache.fresh("http://a/v1", "m", 1000 + MAX_AGE_S).is_none(), "stale");
    assert!(cache.fresh("http://a/v1", "m", 999).is_none(), "from the future");
    assert!(cache.fresh("http://a/v1", "other", 1000).is_none());
    assert!(cache.fresh("http://b/v1", "m", 1000).is_none());
}

#[test]
fn record_replaces_forget_drops_and_mark_warned_sticks() {
    let dir = TempDir::new("window-cache-edit");
    let mut cache = WindowCache::load(dir.path());
    cache.record(entry("http://a/v1", "m", None, 1));
    cache.record(entry("http://a/v1", "m", Some(8192), 2));
    assert_eq!(cache.fresh("http://a/v1", "m", 2).and_then(|entry| entry.window), Some(8192));
    cache.mark_warned("http://a/v1", "m");
    assert!(cache.fresh("http://a/v1", "m", 2).is_some_and(|entry| entry.warned));
    assert!(cache.forget("http://a/v1", "m"));
    assert!(!cache.forget("http://a/v1", "m"));
    assert!(cache.fresh("http://a/v1", "m", 2).is_none());
}

#[test]
fn the_file_round_trips_and_a_bad_file_is_an_empty_cache() {
    let dir = TempDir::new("window-cache-file");
    let mut cache = WindowCache::load(dir.path());
    cache.record(entry("http://a/v1", "m", Some(4096), 5));
    cache.mark_warned("http://a/v1", "m");
    cache.save().unwrap();
    let loaded = WindowCache::load(dir.path());
    let expected = Entry { warned: true, ..entry("http://a/v1", "m", Some(4096), 5) };
    assert_eq!(loaded.fresh("http://a/v1", "m", 5), Some(&expected));
    std::fs::write(dir.path().join(FILE_NAME), "{not json").unwrap();
    assert!(WindowCache::load(dir.path()).fresh("http://a/v1", "m", 5).is_none());
}

#[test]
fn an_unchanged_cache_writes_nothing() {
    let dir = TempDir::new("window-cache-unchanged");
    WindowCache::load(dir.path()).save().unwrap();
    assert!(!dir.path().join(FILE_NAME).exists());
}

#[test]
fn an_entry_is_described_with_its_window_source_and_age() {
    let known = entry("http://a/v1", "m", Some(4096), 1000);
    assert_eq!(known.describe(1040), "4096 tokens from GET /props, asked 40 s ago");
    assert_eq!(known.describe(1000 + 3 * 3600 + 5), "4096 tokens from GET /props, asked 3 h ago");
    assert_eq!(known.describe(1000 + 2 * 86_400), "4096 tokens from GET /props, asked 2 d ago");
    assert_eq!(known.describe(999), "4096 tokens from GET /props, asked 0 s ago", "a clock gone back");
    let none = entry("http://a/v1", "m", None, 1000);
    assert_eq!(none.describe(1000 + 720), "none: the server answered without a window, asked 12 min ago");
    let noted = Entry { note: Some("Ollama's default".to_string()), ..known };
    assert_eq!(noted.describe(1000), "4096 tokens from GET /props (Ollama's default), asked 0 s ago");
}

#[test]
fn an_older_file_without_vision_loads_as_never_asked() {
    let dir = TempDir::new("cache-older");
    let older = r#"{"entries":[{"base_url":"http://a/v1","model":"m","window":4096,"endpoint":"GET /props","note":null,"checked_at":5,"warned":false}]}"#;
    dir.write(FILE_NAME, older);
    let cache = WindowCache::load(dir.path());
    let entry = cache.fresh("http://a/v1", "m", 6).unwrap();
    assert_eq!((entry.window, entry.vision, entry.vision_asked), (Some(4096), None, false));
}
