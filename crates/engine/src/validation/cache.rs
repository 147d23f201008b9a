//! The compile cache: a true LRU keyed by schema content, with small numeric ids that the
//! binding hands to JavaScript so an already-seen schema object is never re-sent.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use lru::LruCache;

use super::compile::Compiled;

/// One cached schema.
pub struct Entry {
    /// The id JavaScript holds for it.
    pub id: u32,
    /// The compiled validator.
    pub compiled: Compiled,
}

/// Compiled schemas by content key, least recently used evicted first.
pub struct SchemaCache {
    by_content: LruCache<[u8; 32], Entry>,
    by_id: HashMap<u32, [u8; 32]>,
    next_id: u32,
}

impl SchemaCache {
    /// A cache of `capacity` schemas (at least 1).
    #[must_use]
    pub fn new(capacity: usize) -> SchemaCache {
        SchemaCache {
            by_content: LruCache::new(NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN)),
            by_id: HashMap::new(),
            next_id: 1,
        }
    }

    /// The id of a cached schema with this content (marking it most recently used).
    pub fn id_of(&mut self, key: &[u8; 32]) -> Option<u32> {
        self.by_content.get(key).map(|e| e.id)
    }

    /// The schema with this id, if still cached (marking it most recently used).
    pub fn get(&mut self, id: u32) -> Option<&Compiled> {
        let key = self.by_id.get(&id)?;
        self.by_content.get(key).map(|e| &e.compiled)
    }

    /// Caches a compiled schema, evicting the least recently used one when full; its id.
    pub fn insert(&mut self, key: [u8; 32], compiled: Compiled) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        if let Some((_, old)) = self.by_content.push(key, Entry { id, compiled }) {
            if old.id != id {
                self.by_id.remove(&old.id);
            }
        }
        self.by_id.insert(id, key);
        id
    }

    /// How many schemas are cached.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_content.len()
    }

    /// Whether nothing is cached.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_content.is_empty()
    }
}
