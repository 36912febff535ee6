/**
 * Each dataset's source and licence as its publisher states them, served by /api/dataset/.
 *
 * These are facts of the publishers, the same for every data build (a synthetic build's values are
 * not the publisher's, and its descriptions say so), so they live here and not in the catalog a
 * build writes: an older build serves them too, without a rebuild. Where each statement was found
 * is in docs/api.md ("Sources and licences"); what no publisher page states is said to be unstated,
 * never filled in.
 */

export interface Citation {
  /** The reference as the publisher lists it. */
  text: string;
  /** Null where the publisher's listing gives none and none was confirmed. */
  doi: string | null;
}

export interface Archive {
  url: string;
  description: string;
}

export interface DatasetSource {
  publisher: string;
  /** The public addresses the files are published at, the one `make fetch` reads first. */
  archives: Archive[];
  citations: Citation[];
}

export interface DatasetLicence {
  /** The licence's short name, null where the publisher states none. */
  name: string | null;
  /** The licence's text, null where there is no named licence. */
  url: string | null;
  /** What the publisher says, in its words where they are short, or that it says nothing. */
  statement: string;
  /** The page the statement is published on. */
  stated_at: string;
}

export interface DatasetProvenance {
  source: DatasetSource;
  licence: DatasetLicence;
}

const NASANEX_REGISTRY = 'https://registry.opendata.aws/nasanex/';
const LOCA_BIBLIOGRAPHY = 'https://loca.ucsd.edu/loca-bibliography';

const LOCA_2014: Citation = {
  text: 'Pierce, D. W., D. R. Cayan, and B. L. Thrasher, 2014: Statistical downscaling using Localized Constructed Analogs (LOCA). Journal of Hydrometeorology, 15, 2558-2585.',
  doi: '10.1175/JHM-D-14-0082.1',
};

export const DATASET_PROVENANCE: Record<string, DatasetProvenance> = {
  'NEX-GDDP': {
    source: {
      publisher: 'NASA Earth Exchange (NEX), NASA Ames Research Center',
      archives: [
        {
          url: 'https://nasanex.s3.amazonaws.com/NEX-GDDP/',
          description: "NASA's NEX collection on AWS (s3://nasanex/NEX-GDDP, us-west-2); file index NEX-GDDP/nex-gddp-s3-files.json.",
        },
      ],
      citations: [
        {
          text: 'Thrasher, B., E. P. Maurer, C. McKellar, and P. B. Duffy, 2012: Technical Note: Bias correcting climate model simulated daily temperature extremes with quantile mapping. Hydrology and Earth System Sciences, 16, 3309-3314 (the method the dataset description cites).',
          doi: '10.5194/hess-16-3309-2012',
        },
      ],
    },
    licence: {
      name: 'US Government work',
      url: null,
      statement:
        'The AWS Registry of Open Data entry for the NASA Earth Exchange (NEX) data collection, managed by NASA, which holds NEX-GDDP, gives its licence as "US Government work". ' +
        "The publisher's technical note says the dataset is intended for scientific research, and that use for other purposes, such as commercial applications and engineering or design studies, is not recommended without consultation with a qualified expert.",
      stated_at: NASANEX_REGISTRY,
    },
  },
  LOCA: {
    source: {
      publisher: 'Scripps Institution of Oceanography (D. W. Pierce, D. R. Cayan), loca.ucsd.edu; published on AWS by NASA Earth Exchange',
      archives: [
        {
          url: 'https://nasanex.s3.amazonaws.com/LOCA/',
          description: "NASA's NEX collection on AWS (s3://nasanex/LOCA, us-west-2); file index LOCA/loca-s3-files.json.",
        },
        {
          url: 'ftp://gdo-dcp.ucllnl.org/pub/dcp/archive/cmip5/loca/LOCA_2016-04-02/',
          description: 'The Downscaled Climate and Hydrology Projections archive (Green Data Oasis, LLNL), the same layout.',
        },
      ],
      citations: [
        LOCA_2014,
        {
          text: 'Pierce, D. W., D. R. Cayan, E. P. Maurer, J. T. Abatzoglou, and K. C. Hegewisch, 2015: Improved bias correction techniques for hydrological simulations of climate change. Journal of Hydrometeorology, 16, 2421-2442.',
          doi: null,
        },
      ],
    },
    licence: {
      name: 'US Government work',
      url: null,
      statement:
        'The AWS Registry of Open Data entry for the NASA Earth Exchange (NEX) data collection, managed by NASA, which holds this copy of LOCA, gives its licence as "US Government work". ' +
        "No licence was found on the producer's pages (loca.ucsd.edu), which point users to the papers of the LOCA bibliography to cite.",
      stated_at: NASANEX_REGISTRY,
    },
  },
  'NEX-GDDP-CMIP6': {
    source: {
      publisher: 'NASA Earth Exchange (NEX), NASA Ames Research Center; distributed by the NASA Center for Climate Simulation (NCCS)',
      archives: [
        {
          url: 'https://nex-gddp-cmip6.s3.us-west-2.amazonaws.com/NEX-GDDP-CMIP6/',
          description: 'The NEX-GDDP-CMIP6 archive on AWS (s3://nex-gddp-cmip6, us-west-2, no requester pays); md5 indexes index_md5.txt, index_v1.1_md5.txt, index_v1.2_md5.txt, index_v2.0_md5.txt at the bucket root.',
        },
        {
          url: 'https://ds.nccs.nasa.gov/thredds/ncss/grid/AMES/NEX/GDDP-CMIP6/',
          description: "NCCS THREDDS NetCDF Subset Service over the same files ({model}/{scenario}/{member}/{variable}/{file}).",
        },
      ],
      citations: [
        { text: "NASA Earth Exchange Global Daily Downscaled Projections (NEX-GDDP-CMIP6): the dataset, as the publisher's technical note refers to it.", doi: '10.7917/OFSG3345' },
        {
          text: 'Thrasher, B., W. Wang, A. Michaelis, F. Melton, T. Lee, and R. Nemani, 2022: NASA Global Daily Downscaled Projections, CMIP6. Scientific Data, 9, 262.',
          doi: '10.1038/s41597-022-01393-4',
        },
      ],
    },
    licence: {
      name: 'CC0 1.0',
      url: 'https://creativecommons.org/publicdomain/zero/1.0/',
      statement:
        'As of September 2022, all NEX-GDDP-CMIP6 outputs are made available under a blanket Creative Commons Zero (CC0) license; the archive was first made available under CC BY-SA 4.0, ' +
        "as the standard data licence of the original CMIP6 data required and as the metadata of each file notes. " +
        "The publisher's technical note adds that all derived services and products are still required to follow its citation guidance (its section 5), " +
        'and, as for NEX-GDDP, that the dataset is intended for scientific research and other uses are not recommended without consultation with a qualified expert.',
      stated_at: 'https://registry.opendata.aws/nex-gddp-cmip6/',
    },
  },
  LOCA2: {
    source: {
      publisher: 'Scripps Institution of Oceanography (D. W. Pierce), loca.ucsd.edu',
      archives: [
        {
          url: 'https://cirrus.ucsd.edu/~pierce/LOCA2/',
          description: "The publisher's web server: NAmer/ (the whole domain) and CONUS_regions_split/ (by NCEI climate region). The publisher prefers Globus; this server is the much slower way.",
        },
      ],
      citations: [
        {
          text: 'Pierce, D. W., D. R. Cayan, D. R. Feldman, and M. D. Risser, 2023: Future Increases in North American Extreme Precipitation in CMIP6 downscaled with LOCA. Journal of Hydrometeorology.',
          doi: '10.1175/JHM-D-22-0194.1',
        },
        LOCA_2014,
      ],
    },
    licence: {
      name: null,
      url: null,
      statement:
        "No licence or terms of use were found on the publisher's pages (loca.ucsd.edu), which direct users to the LOCA bibliography for the references to cite.",
      stated_at: LOCA_BIBLIOGRAPHY,
    },
  },
};

/** The dataset's source and licence, or nulls for a dataset this service has no record of. */
export function provenanceOf(dataset: string): { source: DatasetSource | null; licence: DatasetLicence | null } {
  return DATASET_PROVENANCE[dataset] ?? { source: null, licence: null };
}
