# bench/netcdf-read.py FILE.nc: one cell's full series from an export's NetCDF file, as an analyst
# reads it with xarray (netCDF-C underneath): open, select the middle cell, load every model's days;
# median of 5 opens, and the chunks the selection touches (h5py). Debian: apt-get install
# python3-xarray python3-netcdf4 python3-h5py, then /usr/bin/python3 bench/netcdf-read.py FILE.nc
import sys, time, statistics
import h5py, xarray as xr
path = sys.argv[1]
with h5py.File(path, 'r') as f:
    d = f['tasmax']
    shape, chunks = d.shape, d.chunks
    ny, nx = shape[2], shape[3]
    per_model = -(-shape[1] // chunks[1])
    print(f"{path}: shape {shape}, chunks {chunks}, filters {d.compression} {d.compression_opts} shuffle={d.shuffle}; one cell's series touches {per_model * shape[0]} chunks of {chunks[1]*chunks[2]*chunks[3]*4/1e6:.2f} MB")
times = []
for _ in range(5):
    t0 = time.perf_counter()
    ds = xr.open_dataset(path, engine='netcdf4')
    s = ds.tasmax.isel(lat=ny // 2, lon=nx // 2).load()
    times.append(time.perf_counter() - t0)
    ds.close()
print(f"  read one cell, every model and day ({s.size:,} values): median {statistics.median(times)*1000:.0f} ms (min {min(times)*1000:.0f}, max {max(times)*1000:.0f})")
