/** Headers of a cached saved-query page replayed on a hit besides its content type, by the origin and the edge alike. */
export const REPLAYED_HEADERS: readonly string[] = ['x-page', 'x-page-size', 'x-has-more', 'x-rows-left-out', 'x-rows-cut-at-bytes', 'content-disposition'];
