-- Spatial types, sent as WKB with a SRID prefix: points, lines, polygons with holes, collections.
CREATE TABLE t (id INT PRIMARY KEY, p POINT, l LINESTRING, pg POLYGON, g GEOMETRY,
                mp MULTIPOINT, gc GEOMETRYCOLLECTION);
INSERT INTO t VALUES (1, ST_PointFromText('POINT(0 0)'), ST_LineFromText('LINESTRING(0 0, 1 1, 2 0)'),
  ST_PolygonFromText('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 2))'),
  ST_GeomFromText('POINT(-1.5 2.25)'), ST_GeomFromText('MULTIPOINT(1 1, 2 2)'),
  ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, 1 1))'));
INSERT INTO t VALUES (2, ST_PointFromText('POINT(1e300 -1e-300)', 4326), NULL,
  ST_PolygonFromText('POLYGON((0 0, 1 0, 1 1, 0 0))'), ST_GeomFromText('POLYGON((0 0, 1 0, 0 1, 0 0))'),
  NULL, ST_GeomFromText('GEOMETRYCOLLECTION EMPTY'));
UPDATE t SET p = ST_PointFromText('POINT(3 4)') WHERE id = 1;
DELETE FROM t WHERE id = 2;
