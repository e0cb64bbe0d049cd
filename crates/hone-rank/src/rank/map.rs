//! A map of the library: the skills' routing embeddings in a plane.
//!
//! Skills an agent confuses sit close together in embedding space; a 2-D
//! picture of that space shows an author the clusters, the neighbours that
//! compete with a skill, and where a request lands among them. The
//! projection is PCA (the two directions along which the routing texts vary
//! most), computed by power iteration from a fixed start: deterministic (the
//! same library gives the same picture on every machine, and a small edit
//! moves points a little instead of reshuffling them as t-SNE would) and
//! linear, so a new request is placed by the same formula as the skills,
//! live as the author types. Collisions ([`super::collision`]) are the
//! map's edges.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::RoutingDoc;
use super::collision::{Collision, CollisionIndex};

/// Power-iteration steps per axis; PCA of a few hundred dimensions
/// converges well within this.
const ITERATIONS: usize = 200;

/// The two principal axes of a set of vectors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Projection {
    mean: Vec<f32>,
    axes: [Vec<f32>; 2],
}

impl Projection {
    /// Fits the axes to `vectors` (all of one dimension; none is fine).
    pub fn fit(vectors: &[&[f32]]) -> Projection {
        let dim = vectors.first().map_or(0, |v| v.len());
        let count = vectors.len().max(1) as f32;
        let mut mean = vec![0f32; dim];
        for vector in vectors {
            for (m, x) in mean.iter_mut().zip(vector.iter()) {
                *m += x / count;
            }
        }
        let centred: Vec<Vec<f32>> = vectors
            .iter()
            .map(|v| v.iter().zip(&mean).map(|(x, m)| x - m).collect())
            .collect();
        let first = principal_axis(&centred, dim, None);
        let second = principal_axis(&centred, dim, Some(&first));
        Projection {
            mean,
            axes: [first, second],
        }
    }

    /// The point of `vector` in the plane.
    pub fn project(&self, vector: &[f32]) -> [f32; 2] {
        self.axes.each_ref().map(|axis| {
            axis.iter()
                .zip(vector.iter().zip(&self.mean))
                .map(|(a, (x, m))| a * (x - m))
                .sum()
        })
    }
}

/// The unit direction of largest variance of `rows`, orthogonal to
/// `orthogonal_to`; zero when there is none.
fn principal_axis(rows: &[Vec<f32>], dim: usize, orthogonal_to: Option<&[f32]>) -> Vec<f32> {
    // A fixed, irregular start, unlikely to be orthogonal to the answer.
    let mut axis: Vec<f32> = (0..dim)
        .map(|i| ((i as f32 + 1.0) * 0.618_034).fract() - 0.5)
        .collect();
    for _ in 0..ITERATIONS {
        if let Some(other) = orthogonal_to {
            remove_component(&mut axis, other);
        }
        if !normalise(&mut axis) {
            return vec![0.0; dim];
        }
        // axis ← Xᵀ X axis: the covariance applied without forming it.
        let mut next = vec![0f32; dim];
        for row in rows {
            let weight: f32 = row.iter().zip(&axis).map(|(x, a)| x * a).sum();
            for (n, x) in next.iter_mut().zip(row) {
                *n += weight * x;
            }
        }
        axis = next;
    }
    if let Some(other) = orthogonal_to {
        remove_component(&mut axis, other);
    }
    if !normalise(&mut axis) {
        return vec![0.0; dim];
    }
    // A fixed sign, so the picture does not flip between runs.
    let largest = axis
        .iter()
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap_or(0.0);
    if largest < 0.0 {
        axis.iter_mut().for_each(|a| *a = -*a);
    }
    axis
}

fn remove_component(vector: &mut [f32], direction: &[f32]) {
    let dot: f32 = vector.iter().zip(direction).map(|(v, d)| v * d).sum();
    for (v, d) in vector.iter_mut().zip(direction) {
        *v -= dot * d;
    }
}

/// Scales to unit length; false for a (near) zero vector.
fn normalise(vector: &mut [f32]) -> bool {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm < 1e-9 {
        return false;
    }
    vector.iter_mut().for_each(|x| *x /= norm);
    true
}

/// The library in the plane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LibraryMap {
    pub points: Vec<MapPoint>,
    /// Colliding pairs, by index into `points`.
    pub edges: Vec<Collision>,
    /// Where the request lands, when one was given.
    pub request: Option<[f32; 2]>,
    /// The projection, to place further requests.
    pub projection: Projection,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MapPoint {
    pub id: String,
    pub key: String,
    pub x: f32,
    pub y: f32,
}

/// The map of the skills of `docs` that have a vector in `vectors` (unit
/// routing embeddings by key, see [`super::Ranker::routing_vectors`]), with
/// `request` (its embedding) placed among them.
pub fn library_map(
    docs: &[RoutingDoc],
    vectors: &HashMap<String, Vec<f32>>,
    request: Option<&[f32]>,
) -> LibraryMap {
    let placed: Vec<&RoutingDoc> = docs
        .iter()
        .filter(|d| vectors.contains_key(&d.key))
        .collect();
    let rows: Vec<&[f32]> = placed.iter().map(|d| vectors[&d.key].as_slice()).collect();
    let projection = Projection::fit(&rows);
    let points = placed
        .iter()
        .zip(&rows)
        .map(|(doc, row)| {
            let [x, y] = projection.project(row);
            MapPoint {
                id: doc.id.clone(),
                key: doc.key.clone(),
                x,
                y,
            }
        })
        .collect();
    let placed_docs: Vec<RoutingDoc> = placed.into_iter().cloned().collect();
    let edges = CollisionIndex::new(&placed_docs).collisions(Some(vectors));
    LibraryMap {
        points,
        edges,
        request: request.map(|r| projection.project(r)),
        projection,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pca_finds_the_direction_of_spread_and_places_new_points_on_it() {
        // Points spread along (1, 1, 0), a little along (0, 0, 1).
        let rows: Vec<Vec<f32>> = [-2.0f32, -1.0, 0.0, 1.0, 2.0]
            .iter()
            .enumerate()
            .map(|(i, t)| vec![*t, *t, if i % 2 == 0 { 0.1 } else { -0.1 }])
            .collect();
        let refs: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
        let projection = Projection::fit(&refs);
        let [x, y] = projection.project(&[3.0, 3.0, 0.02]);
        assert!((x.abs() - 3.0 * 2f32.sqrt()).abs() < 1e-3, "{x}");
        assert!(y.abs() < 1e-3, "{y}");
        // Deterministic: the same input gives the same axes.
        assert_eq!(Projection::fit(&refs), projection);
    }

    #[test]
    fn degenerate_libraries_do_not_fail() {
        assert_eq!(Projection::fit(&[]).project(&[]), [0.0, 0.0]);
        let one = [1.0f32, 0.0];
        assert_eq!(Projection::fit(&[&one]).project(&one), [0.0, 0.0]);
    }

    #[test]
    fn the_map_places_skills_and_the_request_and_draws_collisions() {
        let doc = |id: &str, description: &str| RoutingDoc {
            key: format!("/lib/{id}"),
            id: id.into(),
            name: id.into(),
            description: description.into(),
            when_to_use: None,
            triggers: vec![],
        };
        let docs = vec![
            doc("pdf-a", "Extract text and tables from PDF files and scans."),
            doc(
                "pdf-b",
                "Extract the text and tables of PDF files and scans.",
            ),
            doc("git", "Write commit messages."),
            doc("unembedded", "Not in the vectors."),
        ];
        let mut vectors = HashMap::new();
        vectors.insert("/lib/pdf-a".to_owned(), vec![1.0, 0.0, 0.0]);
        vectors.insert("/lib/pdf-b".to_owned(), vec![0.98, 0.2, 0.0]);
        vectors.insert("/lib/git".to_owned(), vec![0.0, 0.0, 1.0]);
        let map = library_map(&docs, &vectors, Some(&[0.99, 0.1, 0.0]));
        assert_eq!(map.points.len(), 3);
        assert_eq!(map.edges.len(), 1);
        let (a, b) = (
            &map.points[map.edges[0].first],
            &map.points[map.edges[0].second],
        );
        assert_eq!((a.id.as_str(), b.id.as_str()), ("pdf-a", "pdf-b"));
        // The request lands beside the PDF skills, far from git.
        let request = map.request.unwrap();
        let distance =
            |p: &MapPoint| ((p.x - request[0]).powi(2) + (p.y - request[1]).powi(2)).sqrt();
        assert!(distance(a) < distance(&map.points[2]));
    }
}
