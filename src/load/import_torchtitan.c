/* import_torchtitan.c - placeholder until the TOML reader lands */
#include "import_int.h"

int dc_import_torchtitan(const char *buf, size_t len, const char *name, struct dc_import *imp, struct dc_diag *diag)
{
	(void)buf;
	(void)len;
	(void)imp;
	dc_diag_error(diag, DC_ERR_CONFIG, "%s: error: not yet", name);
	return -1;
}
