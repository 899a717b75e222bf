#include <string.h>
#include <glib.h>

#include "model/registry.h"
#include "model/kvm.h"

/* The models every build knows. Adding a hypervisor: one line here. */
static const struct vm_model_class *const builtin_models[] = {
	&vm_model_kvm,
};

/* Models added at run time (const struct vm_model_class *), lazily created. */
static GPtrArray *added_models;

const struct vm_model_class *vm_model_registry_find(const char *name)
{
	size_t i;

	if (!name) {
		return NULL;
	}
	for (i = 0; i < G_N_ELEMENTS(builtin_models); i++) {
		if (strcmp(builtin_models[i]->name, name) == 0) {
			return builtin_models[i];
		}
	}
	for (i = 0; added_models && i < added_models->len; i++) {
		const struct vm_model_class *cls =
			g_ptr_array_index(added_models, i);

		if (strcmp(cls->name, name) == 0) {
			return cls;
		}
	}
	return NULL;
}

bool vm_model_registry_add(const struct vm_model_class *cls)
{
	if (!cls || !cls->name || vm_model_registry_find(cls->name)) {
		return false;
	}
	if (!added_models) {
		added_models = g_ptr_array_new();
	}
	g_ptr_array_add(added_models, (gpointer) cls);
	return true;
}

void vm_model_registry_reset(void)
{
	if (added_models) {
		g_ptr_array_free(added_models, TRUE);
		added_models = NULL;
	}
}

char *vm_model_registry_names(void)
{
	GString *names = g_string_new(NULL);
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(builtin_models); i++) {
		g_string_append_printf(names, "%s%s", i ? ", " : "",
			builtin_models[i]->name);
	}
	for (i = 0; added_models && i < added_models->len; i++) {
		const struct vm_model_class *cls =
			g_ptr_array_index(added_models, i);

		g_string_append_printf(names, ", %s", cls->name);
	}
	return g_string_free(names, FALSE);
}
