#include <glib.h>

#include "model/model.h"

struct vm_model *vm_model_create(const struct vm_model_class *cls)
{
	struct vm_model *model;

	if (!cls) {
		return NULL;
	}
	model = g_new0(struct vm_model, 1);
	model->cls = cls;
	model->data = cls->create();
	return model;
}

void vm_model_destroy(struct vm_model *model)
{
	if (!model) {
		return;
	}
	model->cls->destroy(model->data);
	g_free(model);
}
